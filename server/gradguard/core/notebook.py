"""Jupyter notebooks: concatenate code cells into one module and map positions back to cells.

Shared by the language server (cells arrive as LSP documents) and `gradguard check` (cells
read from an `.ipynb` file, see `gradguard.ipynb`). A hidden state defined in one cell and
carried by a loop in another is only visible when the cells are analysed together, in
order. IPython syntax (`%matplotlib`, `!pip`, `x = !ls`, `%%bash` cells) is blanked out line
by line so that every line keeps its number and every column its value (an indented IPython
line becomes `pass` at its indentation, so a block whose body it was still parses).

Lines are split at Python's line breaks only (`\\r\\n`, `\\r`, `\\n`), as `ast` and
`SourceText` count them: a form feed inside a cell does not start a line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from gradguard.core.findings import Finding, Position, Range

# Line magics, shell escapes, `x = !cmd` / `x = %magic` captures and `obj?` help lines.
_IPYTHON_LINE = re.compile(r"^\s*(?:[%!]|[\w.]+\s*=\s*[%!])|^\s*[\w.]+\?{1,2}\s*$")
# Cell magics whose body is still Python; any other `%%magic` cell (bash, html...) is blanked.
_PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# `line 37` in a message (never inside a `code span`, which quotes the user's code).
_LINE_CITATION = re.compile(r"`[^`]*`|\bline (\d+)\b")


@dataclass(frozen=True)
class Cell:
    """One code cell: an identifier (its document URI in an editor, its number in a file)
    and its text."""

    uri: str
    text: str


@dataclass(frozen=True)
class CellSpan:
    """Where a cell lives in the concatenated module: its first line and line count."""

    uri: str
    first_line: int
    line_count: int


@dataclass(frozen=True)
class ConcatenatedNotebook:
    """The module made of a notebook's code cells, and the map back to the cells.

    `blanked` holds the concatenated lines whose IPython syntax was blanked out: an edit
    there would change text the analysis never saw.
    """

    text: str
    spans: tuple[CellSpan, ...]
    blanked: frozenset[int] = frozenset()

    def locate(self, line: int) -> tuple[str, int] | None:
        """The cell URI and cell-relative line of concatenated `line`."""
        span = self.span_at(line)
        return None if span is None else (span.uri, line - span.first_line)

    def span_at(self, line: int) -> CellSpan | None:
        """The cell holding concatenated `line` (`None` outside every cell)."""
        for span in self.spans:
            if span.first_line <= line < span.first_line + span.line_count:
                return span
        return None

    def map_range(self, rng: Range) -> tuple[str, Range] | None:
        """Map a range back to its cell; `None` when it crosses cells (or lies outside)."""
        start = self.locate(rng.start.line)
        end = self.locate(rng.end.line)
        if start is None or end is None or start[0] != end[0]:
            return None
        return start[0], Range(
            Position(start[1], rng.start.character), Position(end[1], rng.end.character)
        )

    def first_line_of(self, uri: str) -> int | None:
        """The concatenated line where cell `uri` starts."""
        for span in self.spans:
            if span.uri == uri:
                return span.first_line
        return None

    def cite_cells(self, message: str, line: int, label: str = "cell") -> str:
        """`message` with each `line N` (1-based, concatenated) rewritten cell-relative.

        `line` is the concatenated line (0-based) the message is shown at: a cited line in
        the same cell stays `line M`; one in another cell becomes `line M of cell K`, with
        `K` the cell's identifier prefixed by `label` (pass `""` for a bare identifier).
        Text in backticks is code and is never rewritten.
        """
        own = self.span_at(line)

        def rewrite(match: re.Match[str]) -> str:
            if match.group(1) is None:
                return match.group(0)
            cited = self.span_at(int(match.group(1)) - 1)
            if cited is None:
                return match.group(0)
            relative = int(match.group(1)) - cited.first_line
            if cited == own:
                return f"line {relative}"
            name = f"{label} {cited.uri}" if label else cited.uri
            return f"line {relative} of {name}"

        return _LINE_CITATION.sub(rewrite, message)


def split_lines(text: str) -> list[str]:
    """The lines of `text` without their breaks; a final line break starts no line."""
    lines = _LINE_BREAK.split(text)
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines if text else []


def python_lines(text: str) -> list[str]:
    """The cell's lines with IPython-only syntax blanked (same count, same columns)."""
    lines = split_lines(text)
    if lines and lines[0].startswith("%%"):
        magic = lines[0][2:].split(maxsplit=1)[0] if lines[0][2:].strip() else ""
        if magic not in _PYTHON_CELL_MAGICS:
            return ["" for _ in lines]
        lines[0] = ""
    return [_blanked(line) if _IPYTHON_LINE.match(line) else line for line in lines]


def _blanked(line: str) -> str:
    """An IPython line as Python: nothing, or `pass` at its indentation when indented (the
    body of an `if` made only of `!pip install ...` lines must stay a body)."""
    indent = line[: len(line) - len(line.lstrip())]
    return f"{indent}pass" if indent else ""


def concatenate(cells: Sequence[Cell]) -> ConcatenatedNotebook:
    """Join code cells in order into one module, one cell after another."""
    parts: list[str] = []
    spans: list[CellSpan] = []
    blanked: set[int] = set()
    line = 0
    for cell in cells:
        original = split_lines(cell.text)
        lines = python_lines(cell.text)
        blanked.update(line + i for i, text in enumerate(lines) if text != original[i])
        # An empty cell still occupies one line so its URI maps somewhere.
        count = max(len(lines), 1)
        parts.extend(lines or [""])
        spans.append(CellSpan(cell.uri, line, count))
        line += count
    text = "\n".join(parts) + "\n" if parts else ""
    return ConcatenatedNotebook(text, tuple(spans), frozenset(blanked))


def cite_finding(joined: ConcatenatedNotebook, finding: Finding) -> Finding:
    """`finding` with every `line N` its message and related messages cite counted in the
    cell that line is in (`line M`, or `line M of cell K` for another cell)."""
    related = tuple(
        replace(r, message=joined.cite_cells(r.message, r.range.start.line))
        for r in finding.related
    )
    message = joined.cite_cells(finding.message, finding.range.start.line)
    return replace(finding, message=message, related=related)
