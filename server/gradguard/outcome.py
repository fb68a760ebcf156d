"""What checking one file contributes to a `gradguard check` run, as data that travels.

A `FileOutcome` holds the messages a file adds to standard error (in order), its findings,
and what fixing did. It is computed in one place (`gradguard.file_check`), in the CLI's
process or in a worker, and the CLI replays outcomes in file order, so the output does not
depend on where, or in which order, files were checked.

`to_plain` turns an outcome into lists, strings and numbers only: that is how it crosses a
process boundary (a fix may hold a function that computes its edits, which cannot be
pickled) and how it is stored in the cache (`gradguard.cache`, as JSON). `from_plain`
accepts exactly that shape and raises `ValueError` on anything else, so a damaged or foreign
cache entry is recognised, never half-trusted.
"""

from __future__ import annotations

from dataclasses import dataclass

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any

    from gradguard.core.findings import Finding, Fix, Range, Related, TextEdit
    from gradguard.ipynb import CellLayout

WARNING = "warning"
ERROR = "error"


@dataclass(frozen=True)
class Message:
    """A line for standard error about one file.

    `kind` is `warning` (a file left out on purpose) or `error` (a file that could not be
    checked or fixed). `line` and `column` are 1-based; 0 means the message has no position.
    `cell`, in a notebook, is the number of the cell `line` counts in (0: not a cell).
    `lasting` is False for messages that may not recur on the same input (an internal error,
    a crashed rule): an outcome holding one is never cached.
    """

    kind: str
    text: str
    line: int = 0
    column: int = 0
    lasting: bool = True
    cell: int = 0


@dataclass(frozen=True)
class FileOutcome:
    """Everything one file adds to the run.

    `findings` is None when the file has no entry in the report (it could not be read, or
    checking it failed). `new_text` is the file's text after `--fix`/`--diff` when fixing
    changed it; `fixed`, `would_fix` and `diff` count and show those fixes. `cells`, for a
    notebook, places its code cells in the analysed text (`new_text` after a fix) and in the
    file; findings keep positions in the analysed text.
    """

    messages: tuple[Message, ...] = ()
    findings: tuple[Finding, ...] | None = None
    new_text: str | None = None
    fixed: int = 0
    would_fix: int = 0
    diff: str = ""
    cells: tuple[CellLayout, ...] | None = None

    @property
    def cacheable(self) -> bool:
        """True for the outcome of a plain check whose every message would recur."""
        return (
            self.findings is not None
            and self.new_text is None
            and not (self.fixed or self.would_fix or self.diff)
            and all(m.lasting for m in self.messages)
        )


# -- to plain data -----------------------------------------------------------------------------


def to_plain(outcome: FileOutcome) -> list[Any]:
    """The outcome as JSON-compatible lists, strings, numbers, booleans and None."""
    return [
        [[m.kind, m.text, m.line, m.column, m.lasting, m.cell] for m in outcome.messages],
        None if outcome.findings is None else [_finding(f) for f in outcome.findings],
        outcome.new_text,
        outcome.fixed,
        outcome.would_fix,
        outcome.diff,
        None if outcome.cells is None else [_layout(c) for c in outcome.cells],
    ]


def _layout(cell: CellLayout) -> list[Any]:
    return [cell.number, cell.first_line, cell.line_count, list(cell.file_lines)]


def _range(r: Range) -> list[int]:
    return [r.start.line, r.start.character, r.end.line, r.end.character]


def _finding(f: Finding) -> list[Any]:
    return [
        f.code,
        f.name,
        f.severity.value,
        f.message,
        _range(f.range),
        [[_range(r.range), r.message] for r in f.related],
        [_fix(x) for x in f.fixes],
        f.url,
        list(f.tags),
    ]


def _fix(fix: Fix) -> list[Any]:
    # Reading `edits` computes lazily built edits now, in the process that has the source.
    return [fix.title, fix.safety.value, [[_range(e.range), e.new_text] for e in fix.edits]]


# -- from plain data ---------------------------------------------------------------------------


def from_plain(data: object) -> FileOutcome:
    """Rebuild an outcome from `to_plain`'s shape; `ValueError` for anything else."""
    messages, findings, new_text, fixed, would_fix, diff, cells = _items(data, 7)
    return FileOutcome(
        messages=tuple(_message(m) for m in _list(messages)),
        findings=None if findings is None else tuple(_from_finding(f) for f in _list(findings)),
        new_text=None if new_text is None else _str(new_text),
        fixed=_int(fixed),
        would_fix=_int(would_fix),
        diff=_str(diff),
        cells=None if cells is None else tuple(_from_layout(c) for c in _list(cells)),
    )


def _from_layout(data: object) -> CellLayout:
    from gradguard.ipynb import CellLayout

    number, first_line, line_count, file_lines = _items(data, 4)
    lines = tuple(_int(line) for line in _list(file_lines))
    return CellLayout(_int(number), _int(first_line), _int(line_count), lines)


def _message(data: object) -> Message:
    kind, text, line, column, lasting, cell = _items(data, 6)
    if kind not in (WARNING, ERROR):
        raise ValueError(f"unknown message kind {kind!r}")
    if not isinstance(lasting, bool):
        raise ValueError("`lasting` must be a boolean")
    return Message(kind, _str(text), _int(line), _int(column), lasting, _int(cell))


def _from_finding(data: object) -> Finding:
    # The findings classes are imported by the functions that build them: a run that
    # neither reads the cache nor uses workers never does (start-up).
    from gradguard.core.findings import Finding, Severity

    code, name, severity, message, rng, related, fixes, url, tags = _items(data, 9)
    return Finding(
        code=_str(code),
        name=_str(name),
        severity=Severity(_str(severity)),
        message=_str(message),
        range=_from_range(rng),
        related=tuple(_from_related(r) for r in _list(related)),
        fixes=tuple(_from_fix(x) for x in _list(fixes)),
        url=_str(url),
        tags=tuple(_str(t) for t in _list(tags)),
    )


def _from_related(data: object) -> Related:
    from gradguard.core.findings import Related

    rng, message = _items(data, 2)
    return Related(_from_range(rng), _str(message))


def _from_fix(data: object) -> Fix:
    from gradguard.core.findings import Fix, Safety

    title, safety, edits = _items(data, 3)
    built = tuple(_from_edit(e) for e in _list(edits))
    return Fix(_str(title), Safety(_str(safety)), built)


def _from_edit(data: object) -> TextEdit:
    from gradguard.core.findings import TextEdit

    rng, new_text = _items(data, 2)
    return TextEdit(_from_range(rng), _str(new_text))


def _from_range(data: object) -> Range:
    from gradguard.core.findings import Position, Range

    start_line, start_char, end_line, end_char = (_int(v) for v in _items(data, 4))
    return Range(Position(start_line, start_char), Position(end_line, end_char))


def _items(data: object, count: int) -> list[object]:
    items = _list(data)
    if len(items) != count:
        raise ValueError(f"expected {count} items, got {len(items)}")
    return items


def _list(data: object) -> list[object]:
    if not isinstance(data, list):
        raise ValueError(f"expected a list, got {type(data).__name__}")
    return data


def _str(data: object) -> str:
    if not isinstance(data, str):
        raise ValueError(f"expected a string, got {type(data).__name__}")
    return data


def _int(data: object) -> int:
    # bool is an int in Python, but never one of ours.
    if not isinstance(data, int) or isinstance(data, bool) or data < 0:
        raise ValueError(f"expected a natural number, got {data!r}")
    return data
