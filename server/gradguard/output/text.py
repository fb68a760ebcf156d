"""`--output-format text` (the default): ruff-style messages with code frames and a summary.

```
train.py:14:5: GG101 `loss` was computed under torch.no_grad() (line 12), so ...
   |
13 |         loss = model(x).sum()
14 |     loss.backward()
   |     ^^^^^^^^^^^^^^^ GG101
   |
   = note: train.py:12:10: gradient tracking is off here
   = help: [*] Move the computation out of torch.no_grad()
```

Columns are 1-based and counted in characters; carets are placed by display width (tabs,
wide CJK characters) so they line up in a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass

from gradguard.output import FileReport, Report, printable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from gradguard.core.findings import Finding, Range
    from gradguard.core.text import SourceText

CONTEXT_LINES = 2
MAX_RANGE_LINES = 8
TAB_WIDTH = 4


@dataclass(frozen=True)
class Palette:
    """ANSI styles; all empty when colour is off."""

    bold: str = ""
    red: str = ""
    blue: str = ""
    cyan: str = ""
    yellow: str = ""
    reset: str = ""


COLOR = Palette("\x1b[1m", "\x1b[1;31m", "\x1b[1;34m", "\x1b[36m", "\x1b[33m", "\x1b[0m")
PLAIN = Palette()


def render(report: Report, *, color: bool = False) -> str:
    """Every finding with its frame, then the summary."""
    p = COLOR if color else PLAIN
    blocks = [render_finding(file, f, p) for file in report.files for f in file.findings]
    body = "".join(block + "\n" for block in blocks)
    return body + summary(report, p)


def render_finding(file: FileReport, finding: Finding, p: Palette = PLAIN) -> str:
    """The header line, the code frame, notes and help for one finding.

    In a notebook the position reads `path:cell N:line:column` and the frame shows the
    cell alone, numbered from its first line.
    """
    # Imported here: a report without findings never needs it (start-up).
    from gradguard.core.findings import Safety

    cell, shown = file.place_range(finding.range)
    in_cell = f"cell {cell}:" if cell is not None else ""
    header = (
        f"{p.bold}{printable(file.path)}{p.reset}:{in_cell}{shown.start.line + 1}:"
        f"{shown.start.character + 1}: {p.red}{finding.code}{p.reset} {finding.message}"
    )
    source = file.cell_source(cell)
    lines = [header, *code_frame(source, shown, finding.code, p)]
    pad = " " * (_gutter_width(source, shown) + 1)
    for related in finding.related:
        where = file.where(related.range.start)
        lines.append(f"{pad}{p.blue}={p.reset} {p.bold}note{p.reset}: {where}: {related.message}")
    for fix in finding.fixes[:1]:
        if file.applicable(fix):
            lines.append(
                f"{pad}{p.blue}={p.reset} {p.bold}help{p.reset}: {p.cyan}[*]{p.reset} {fix.title}"
            )
        elif fix.safety is Safety.UNSAFE:
            lines.append(
                f"{pad}{p.blue}={p.reset} {p.bold}help{p.reset}: {fix.title} "
                f"{p.yellow}(unsafe fix available, use --unsafe-fixes){p.reset}"
            )
    return "\n".join(lines) + "\n"


def summary(report: Report, p: Palette = PLAIN) -> str:
    """`All checks passed!`, or `Found N errors.` and what `--fix` could do about them."""
    remaining = report.finding_count
    lines: list[str] = []
    if remaining == 0 and not report.failures and report.fixed == 0:
        return f"{p.bold}All checks passed!{p.reset}\n"
    from gradguard.core.findings import Safety  # only now: `All checks passed!` needs none

    if report.fix_mode and report.fixed:
        total = report.fixed + remaining
        lines.append(
            f"Found {_plural(total, 'error')} ({report.fixed} fixed, {remaining} remaining)."
        )
    else:
        lines.append(f"Found {_plural(remaining, 'error')}.")
    fixable = sum(1 for f in report.files for x in f.findings if f.applicable(x.fix))
    hidden = sum(
        1
        for f in report.files
        for x in f.findings
        if x.fix is not None and not f.applicable(x.fix) and x.fix.safety is Safety.UNSAFE
    )
    if fixable:
        lines.append(f"{p.cyan}[*]{p.reset} {fixable} fixable with the --fix option.")
    if hidden:
        lines.append(
            f"{_plural(hidden, 'hidden fix', 'hidden fixes')} can be enabled with the "
            "--unsafe-fixes option."
        )
    if report.failures:
        lines.append(
            f"{_plural(len(report.failures), 'file')} could not be checked (see the errors above)."
        )
    return "".join(line + "\n" for line in lines)


def _plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


# -- code frames -----------------------------------------------------------------------------


def code_frame(source: SourceText, rng: Range, label: str, p: Palette = PLAIN) -> list[str]:
    """The source lines around `rng` with carets under the covered characters."""
    first, last = _range_lines(source, rng)
    shown = _context(source, first, last)
    width = _gutter_width(source, rng)
    bar = f"{p.blue}{' ' * width} |{p.reset}"
    out = [bar]
    previous: int | None = None
    for index in shown:
        if previous is not None and index != previous + 1:
            out.append(f"{p.blue}{'.' * width}{p.reset}")
        previous = index
        text = source.line(index)
        out.append(f"{p.blue}{index + 1:>{width}} |{p.reset} {_expand(text)}".rstrip())
        if first <= index <= last:
            begin, end = _covered(source, rng, index, first, last)
            lead = _width(text[:begin])
            carets = max(1, _width(text[begin:end]))
            tail = f" {label}" if index == last else ""
            out.append(f"{bar} {' ' * lead}{p.red}{'^' * carets}{tail}{p.reset}")
    out.append(bar)
    return out


def _range_lines(source: SourceText, rng: Range) -> tuple[int, int]:
    last_index = source.line_count - 1
    first = min(rng.start.line, last_index)
    last = min(rng.end.line, last_index)
    # A range ending at column 0 of a later line ends, visibly, on the line before.
    if last > first and rng.end.character == 0:
        last -= 1
    return first, last


def _context(source: SourceText, first: int, last: int) -> list[int]:
    before = [i for i in range(max(0, first - CONTEXT_LINES), first)]
    after = [i for i in range(last + 1, min(source.line_count, last + 1 + CONTEXT_LINES))]
    # Blank context lines at the edges only add noise.
    while before and not source.line(before[0]).strip():
        before.pop(0)
    while after and not source.line(after[-1]).strip():
        after.pop()
    covered = list(range(first, last + 1))
    if len(covered) > MAX_RANGE_LINES:
        keep = MAX_RANGE_LINES // 2
        covered = covered[:keep] + covered[-keep:]
    return before + covered + after


def _covered(source: SourceText, rng: Range, index: int, first: int, last: int) -> tuple[int, int]:
    text = source.line(index)
    indent = len(text) - len(text.lstrip())
    begin = rng.start.character if index == first else indent
    end = rng.end.character if index == rng.end.line else len(text)
    begin = min(begin, len(text))
    return begin, max(begin, min(end, len(text)))


def _gutter_width(source: SourceText, rng: Range) -> int:
    last = min(rng.end.line + CONTEXT_LINES, source.line_count - 1)
    return len(str(last + 1))


def _expand(text: str) -> str:
    return text.replace("\t", " " * TAB_WIDTH)


def _width(text: str) -> int:
    """Terminal columns taken by `text` (tabs expanded, wide characters count twice)."""
    import unicodedata  # here: a run without findings never needs it (start-up)

    total = 0
    for char in text:
        if char == "\t":
            total += TAB_WIDTH
        elif unicodedata.combining(char):
            continue
        elif unicodedata.east_asian_width(char) in ("W", "F"):
            total += 2
        else:
            total += 1
    return total
