"""Jupyter notebooks: concatenate code cells into one module and map positions back to cells.

A hidden state defined in one cell and carried by a loop in another is only visible when
the cells are analysed together, in order. IPython syntax (`%matplotlib`, `!pip`,
`x = !ls`, `%%bash` cells) is blanked out line by line so that every line keeps its
number and every column its value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gradguard.core.findings import Position, Range

# Line magics, shell escapes, `x = !cmd` / `x = %magic` captures and `obj?` help lines.
_IPYTHON_LINE = re.compile(r"^\s*(?:[%!]|[\w.]+\s*=\s*[%!])|^\s*[\w.]+\?{1,2}\s*$")
# Cell magics whose body is still Python; any other `%%magic` cell (bash, html...) is blanked.
_PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})


@dataclass(frozen=True)
class Cell:
    """One code cell: its document URI and text."""

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
    """The module made of a notebook's code cells, and the map back to the cells."""

    text: str
    spans: tuple[CellSpan, ...]

    def locate(self, line: int) -> tuple[str, int] | None:
        """The cell URI and cell-relative line of concatenated `line`."""
        for span in self.spans:
            if span.first_line <= line < span.first_line + span.line_count:
                return span.uri, line - span.first_line
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


def _python_lines(text: str) -> list[str]:
    """The cell's lines with IPython-only syntax blanked (same count, same columns)."""
    lines = text.splitlines()
    if lines and lines[0].startswith("%%"):
        magic = lines[0][2:].split(maxsplit=1)[0] if lines[0][2:].strip() else ""
        if magic not in _PYTHON_CELL_MAGICS:
            return ["" for _ in lines]
        lines[0] = ""
    return ["" if _IPYTHON_LINE.match(line) else line for line in lines]


def concatenate(cells: Sequence[Cell]) -> ConcatenatedNotebook:
    """Join code cells in order into one module, one cell after another."""
    parts: list[str] = []
    spans: list[CellSpan] = []
    line = 0
    for cell in cells:
        lines = _python_lines(cell.text)
        # An empty cell still occupies one line so its URI maps somewhere.
        count = max(len(lines), 1)
        parts.extend(lines or [""])
        spans.append(CellSpan(cell.uri, line, count))
        line += count
    text = "\n".join(parts) + "\n" if parts else ""
    return ConcatenatedNotebook(text, tuple(spans))
