"""Report formats of `gradguard check`: one module per `--output-format`.

The CLI gathers a `Report` (plain data); a format module turns it into the text written to
stdout. Format modules are imported only when chosen, to keep start-up fast.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from gradguard.core.findings import Finding, Fix, Position, Range
    from gradguard.core.text import SourceText
    from gradguard.ipynb import CellLayout

FORMATS = ("text", "concise", "json", "github", "sarif")


def printable(path: str) -> str:
    """A path as valid text: bytes of a file name that are not UTF-8 (which Python keeps as
    lone surrogates) are shown escaped, `caf\\xe9.py`, so every format stays valid UTF-8."""
    if path.isascii():
        return path
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


@dataclass(frozen=True)
class FileReport:
    """The findings left in one file, with the text they refer to.

    For a notebook, `source` is its code cells joined (the text the findings' positions
    count in) and `cells` places each cell in it and in the file (see `gradguard.ipynb`);
    the methods below turn a position into the cell it is in and the line within it.
    """

    path: str
    source: SourceText
    findings: tuple[Finding, ...]
    unsafe_fixes: bool = False
    cells: tuple[CellLayout, ...] | None = None

    def cell_at(self, line: int) -> CellLayout | None:
        """The notebook cell holding `line` of `source` (None for a Python file)."""
        if not self.cells:
            return None
        for cell in reversed(self.cells):
            if cell.first_line <= line:
                return cell
        return self.cells[0]

    def place(self, position: Position) -> tuple[int | None, Position]:
        """The cell number (None outside a notebook) and the position within the cell."""
        # The findings and text classes are imported where used: a report without findings
        # (the common case at start-up) never needs them.
        from gradguard.core.findings import Position

        cell = self.cell_at(position.line)
        if cell is None:
            return None, position
        return cell.number, Position(max(0, position.line - cell.first_line), position.character)

    def place_range(self, rng: Range) -> tuple[int | None, Range]:
        """The cell of `rng`'s start and the range within it (cut at the cell's end)."""
        from gradguard.core.findings import Position, Range

        cell = self.cell_at(rng.start.line)
        if cell is None:
            return None, rng
        end = rng.end
        last = cell.first_line + cell.line_count - 1
        if end.line > last:
            end = Position(last, len(self.source.line(min(last, self.source.line_count - 1))))
        start = rng.start if rng.start.line <= last else end
        shift = cell.first_line
        return cell.number, Range(
            Position(max(0, start.line - shift), start.character),
            Position(max(0, end.line - shift), end.character),
        )

    def cell_source(self, cell_number: int | None) -> SourceText:
        """The text of one notebook cell as analysed (all of `source` for a Python file)."""
        from gradguard.core.text import SourceText

        for cell in self.cells or ():
            if cell.number == cell_number:
                lines = range(cell.first_line, cell.first_line + cell.line_count)
                return SourceText("\n".join(self.source.line(i) for i in lines))
        return self.source

    def where(self, position: Position) -> str:
        """`path:line:column` (1-based), or `path:cell N:line:column` in a notebook."""
        cell, at = self.place(position)
        prefix = f"{printable(self.path)}:cell {cell}" if cell is not None else printable(self.path)
        return f"{prefix}:{at.line + 1}:{at.character + 1}"

    def file_line(self, position: Position) -> int:
        """The 1-based line of the file itself (in a notebook: of its JSON text)."""
        cell = self.cell_at(position.line)
        if cell is None:
            return position.line + 1
        index = min(max(0, position.line - cell.first_line), len(cell.file_lines) - 1)
        return cell.file_lines[index] if cell.file_lines else 1

    def file_span(self, rng: Range) -> tuple[int, int]:
        """The first and last 1-based lines of the file that `rng` covers (in a notebook,
        lines of its JSON text, the range cut at the end of its cell)."""
        from gradguard.core.findings import Position

        cell = self.cell_at(rng.start.line)
        if cell is None:
            return rng.start.line + 1, rng.end.line + 1
        _, shown = self.place_range(rng)
        first = self.file_line(Position(cell.first_line + shown.start.line, 0))
        last = self.file_line(Position(cell.first_line + shown.end.line, 0))
        return first, max(first, last)

    def applicable(self, fix: Fix | None) -> bool:
        """True when `--fix` would apply `fix` under this file's fix policy (a fix the engine
        refused to offer, see `gradguard.core.fix_validation`, has no edits)."""
        from gradguard.core.findings import Safety

        return (
            fix is not None and (fix.safety is Safety.SAFE or self.unsafe_fixes) and bool(fix.edits)
        )


@dataclass(frozen=True)
class Failure:
    """A file that could not be checked: unreadable, not UTF-8, not parsable, a rule crashed."""

    path: str
    message: str
    position: Position | None = None
    cell: int | None = None  # the notebook cell `position` counts in

    def render(self) -> str:
        """`path:line:col: error: message` (1-based), `path:cell N:line:col: ...` in a
        notebook, or `path: error: message`."""
        if self.position is None:
            return f"{printable(self.path)}: error: {self.message}"
        line, column = self.position.line + 1, self.position.character + 1
        cell = f"cell {self.cell}:" if self.cell is not None else ""
        return f"{printable(self.path)}:{cell}{line}:{column}: error: {self.message}"


@dataclass(frozen=True)
class Report:
    """Everything one `gradguard check` run has to say."""

    files: tuple[FileReport, ...]
    failures: tuple[Failure, ...] = ()
    fixed: int = 0
    fix_mode: bool = False

    @property
    def finding_count(self) -> int:
        """How many findings remain across all files."""
        return sum(len(f.findings) for f in self.files)


def render(report: Report, fmt: str, *, color: bool = False) -> str:
    """Render `report` in the output format `fmt` (one of `FORMATS`)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown output format {fmt!r}")
    module = importlib.import_module(f"gradguard.output.{fmt}")
    text: str = module.render(report, color=color)
    return text


def one_based(position: Position) -> dict[str, int]:
    """A position as ruff writes it: `{"row": line + 1, "column": character + 1}`."""
    return {"row": position.line + 1, "column": position.character + 1}
