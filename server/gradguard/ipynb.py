"""Jupyter notebook files (`.ipynb`, nbformat 4) for `gradguard check`: read and write back.

Reading finds, besides the parsed JSON, where each code cell's `"source"` value sits in the
file's text, so that `--fix` can replace exactly those characters and leave everything else
(outputs, metadata, key order, indentation, escapes) byte for byte as it was. A rewritten
`source` keeps its form (a list of lines or one string) and the list's layout.

Cells are numbered from 1 among all cells, markdown ones included, as a reader counts them
in the notebook (and as ruff numbers them). Only code cells are Python; a notebook whose
kernel language is not Python is not checked at all.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from gradguard.core.notebook import Cell, ConcatenatedNotebook, concatenate

SUFFIX = ".ipynb"
_DECODER = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_PYTHON_LANGUAGES = frozenset({"python", "python3", "ipython", "ipython3"})
# A line of a `source` list: nbformat splits after each "\n" and keeps it.
_SOURCE_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")


class NotebookError(ValueError):
    """The file is not a notebook GradGuard can read (invalid JSON, not nbformat 4)."""


class SkippedNotebook(ValueError):
    """A valid notebook GradGuard leaves out on purpose (said in a warning, not an error)."""


class NotPythonNotebook(SkippedNotebook):
    """The notebook's kernel language is not Python: there is nothing to check."""


@dataclass(frozen=True)
class SourceField:
    """Where a cell's `"source"` value is in the file's text.

    `start`/`end` delimit the whole value; `items` holds the offset of each string of a
    list (the offset of the value itself for a single string); `is_list` tells the form.
    """

    start: int
    end: int
    items: tuple[int, ...]
    is_list: bool


@dataclass(frozen=True)
class CodeCell:
    """A code cell: its number among all cells (from 1), its source text and where it is."""

    number: int
    text: str
    field: SourceField
    item_lengths: tuple[int, ...] = ()


@dataclass(frozen=True)
class CellLayout:
    """Where a code cell's lines are: in the concatenated module and in the `.ipynb` file.

    `file_lines[i]` is the 1-based line of the file that holds the cell's line `i` (all of
    them the same line when the source is a single JSON string).
    """

    number: int
    first_line: int
    line_count: int
    file_lines: tuple[int, ...]


@dataclass(frozen=True)
class Notebook:
    """A parsed notebook file: its text and its code cells, in order."""

    raw: str
    cells: tuple[CodeCell, ...]

    def concatenated(self) -> ConcatenatedNotebook:
        """The code cells joined into one module (see `gradguard.core.notebook`)."""
        return concatenate([Cell(str(cell.number), cell.text) for cell in self.cells])

    def layout(self) -> tuple[CellLayout, ...]:
        """Each code cell's place in the concatenated module and in the file."""
        breaks = [m.start() for m in re.finditer("\n", self.raw)]
        joined = self.concatenated()
        layouts: list[CellLayout] = []
        for cell, span in zip(self.cells, joined.spans, strict=True):
            offsets = cell.field.items or (cell.field.start,)
            item_lines = [bisect.bisect_left(breaks, offset) + 1 for offset in offsets]
            file_lines = _file_lines(cell, item_lines, span.line_count)
            layouts.append(CellLayout(cell.number, span.first_line, span.line_count, file_lines))
        return tuple(layouts)

    def rewrite(self, texts: Mapping[int, str]) -> str:
        """The file's text with the sources of the cells numbered in `texts` replaced."""
        ascii_only = self.raw.isascii() and "\\u" in self.raw
        out: list[str] = []
        cursor = 0
        for cell in self.cells:
            if cell.number not in texts or texts[cell.number] == cell.text:
                continue
            field = cell.field
            out.append(self.raw[cursor : field.start])
            out.append(self._source_json(field, texts[cell.number], ascii_only))
            cursor = field.end
        out.append(self.raw[cursor:])
        return "".join(out)

    def _source_json(self, field: SourceField, text: str, ascii_only: bool) -> str:
        if not field.is_list:
            return json.dumps(text, ensure_ascii=ascii_only)
        lines = [json.dumps(line, ensure_ascii=ascii_only) for line in _SOURCE_LINE.findall(text)]
        if not lines:
            return "[]"
        lead, separator, trail = self._list_layout(field)
        return "[" + lead + separator.join(lines) + trail + "]"

    def _list_layout(self, field: SourceField) -> tuple[str, str, str]:
        """The whitespace after `[`, between items (with the comma) and before `]`."""
        if not field.items:  # `[]`: follow another cell's list, shifted to this indentation
            model = next((c.field for c in self.cells if c.field.items and c.field.is_list), None)
            if model is None:
                return "", ", ", ""
            lead, separator, trail = self._list_layout(model)
            indent = self._indent_at(field.start)
            shift = indent[len(self._indent_at(model.start)) :] if lead.startswith("\n") else ""
            return lead + shift, separator + shift, trail + shift
        raw = self.raw
        lead = raw[field.start + 1 : field.items[0]]
        trail = raw[self._string_end(field.items[-1]) : field.end - 1]
        if len(field.items) > 1:
            separator = raw[self._string_end(field.items[0]) : field.items[1]]
        else:
            separator = "," + lead
        return lead, separator, trail

    def _string_end(self, offset: int) -> int:
        """The offset just past the JSON string that starts at `offset`."""
        end: int = _DECODER.raw_decode(self.raw, offset)[1]
        return end

    def _indent_at(self, offset: int) -> str:
        """The leading whitespace of the file's line holding `offset`."""
        line_start = self.raw.rfind("\n", 0, offset) + 1
        line = self.raw[line_start:offset]
        return line[: len(line) - len(line.lstrip(" \t"))]


def _file_lines(cell: CodeCell, item_lines: list[int], count: int) -> tuple[int, ...]:
    """The file line of each of the cell's `count` lines: that of the string it starts in."""
    if not item_lines:
        return tuple([1] * count)
    if not cell.field.is_list:
        return tuple([item_lines[0]] * count)
    item_starts = [0]
    for length in cell.item_lengths[:-1]:
        item_starts.append(item_starts[-1] + length)
    line_starts = [0, *(m.end() for m in _LINE_BREAK.finditer(cell.text))]
    lines: list[int] = []
    for index in range(count):
        offset = line_starts[min(index, len(line_starts) - 1)]
        item = max(0, bisect.bisect_right(item_starts, offset) - 1)
        lines.append(item_lines[min(item, len(item_lines) - 1)])
    return tuple(lines)


# -- reading ---------------------------------------------------------------------------------


def parse_notebook(raw: str) -> Notebook:
    """Parse a notebook's text; `NotebookError` says what is wrong with it, and
    `SkippedNotebook` why it is not checked (not Python, an old nbformat)."""
    try:
        document = json.loads(raw)
    except RecursionError:
        raise NotebookError("invalid notebook: JSON nested too deeply") from None
    except ValueError as exc:
        raise NotebookError(f"invalid notebook JSON: {exc}") from None
    cells = _validated_cells(document)
    fields = _source_fields(raw)
    if len(fields) != len(cells):  # cannot happen for valid JSON; never guess
        raise NotebookError("invalid notebook: cannot locate the cells' sources")
    code: list[CodeCell] = []
    for number, (cell, field) in enumerate(zip(cells, fields, strict=True), start=1):
        if cell.get("cell_type") != "code":
            continue
        source = cell["source"]
        assert isinstance(source, (str, list))  # `_validated_cells` made sure
        if isinstance(source, str):
            code.append(CodeCell(number, source, field, (len(source),)))
        else:
            lengths = tuple(len(s) for s in source)
            code.append(CodeCell(number, "".join(source), field, lengths))
    return Notebook(raw, tuple(code))


def _validated_cells(document: object) -> list[dict[str, object]]:
    """The notebook's cells, after checking the shape GradGuard relies on."""
    if isinstance(document, dict) and "worksheets" in document and "cells" not in document:
        raise SkippedNotebook(
            "an nbformat 3 notebook; GradGuard reads nbformat 4 "
            "(`jupyter nbconvert --to notebook --inplace` converts it)"
        )
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        raise NotebookError('not a Jupyter notebook in nbformat 4: no "cells" list')
    language = _language(document.get("metadata"))
    if language is not None and language.lower() not in _PYTHON_LANGUAGES:
        raise NotPythonNotebook(f"not a Python notebook (its language is {language!r})")
    cells: list[dict[str, object]] = []
    for number, cell in enumerate(document["cells"], start=1):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise NotebookError(f"invalid notebook: cell {number} has no cell_type")
        source = cell.get("source")
        valid = isinstance(source, str) or (
            isinstance(source, list) and all(isinstance(s, str) for s in source)
        )
        if not valid:
            raise NotebookError(f"invalid notebook: the source of cell {number} is not text")
        cells.append(cell)
    return cells


def _language(metadata: object) -> str | None:
    """The notebook's language from its metadata, when it says."""
    if not isinstance(metadata, dict):
        return None
    for key, field in (("language_info", "name"), ("kernelspec", "language")):
        section = metadata.get(key)
        if isinstance(section, dict) and isinstance(section.get(field), str):
            return str(section[field])
    return None


def _source_fields(raw: str) -> list[SourceField]:
    """Where each cell's `"source"` is, in cell order (the JSON is known to be valid)."""
    scanner = _Scanner(raw)
    try:
        return scanner.cells()
    except (ValueError, IndexError, RecursionError):
        raise NotebookError("invalid notebook: cannot locate the cells' sources") from None


@dataclass
class _Scanner:
    """Walks the top of a valid notebook's JSON text, skipping every value it does not need
    with the standard decoder and noting the offsets of the cells' sources."""

    raw: str
    pos: int = 0

    def cells(self) -> list[SourceField]:
        fields: list[SourceField] = []
        for key in self._members():
            if key == "cells":
                fields = [self._cell() for _ in self._elements()]
            else:
                self._skip()
        return fields

    def _cell(self) -> SourceField:
        field: SourceField | None = None
        for key in self._members():
            if key == "source":
                field = self._source()
            else:
                self._skip()
        if field is None:
            raise ValueError("a cell without a source")
        return field

    def _source(self) -> SourceField:
        start = self.pos
        if self.raw[start] != "[":
            self._skip()
            return SourceField(start, self.pos, (start,), is_list=False)
        items: list[int] = []
        for _ in self._elements():
            items.append(self.pos)
            self._skip()
        return SourceField(start, self.pos, tuple(items), is_list=True)

    def _members(self) -> _Iterator:
        """Iterate over an object's keys, leaving `pos` at each value."""
        return _Iterator(self, "{", "}", key=True)

    def _elements(self) -> _Iterator:
        """Iterate over an array, leaving `pos` at each element."""
        return _Iterator(self, "[", "]", key=False)

    def _skip(self) -> None:
        self.pos = _DECODER.raw_decode(self.raw, self.pos)[1]

    def whitespace(self) -> None:
        match = _WHITESPACE.match(self.raw, self.pos)
        assert match is not None
        self.pos = match.end()

    def expect(self, char: str) -> None:
        self.whitespace()
        if self.raw[self.pos] != char:
            raise ValueError(f"expected {char!r} at {self.pos}")
        self.pos += 1


@dataclass
class _Iterator:
    """The members of an object (yielding keys) or elements of an array (yielding None)."""

    scanner: _Scanner
    open: str
    close: str
    key: bool
    started: bool = False

    def __iter__(self) -> _Iterator:
        return self

    def __next__(self) -> str | None:
        s = self.scanner
        if not self.started:
            s.expect(self.open)
            self.started = True
            s.whitespace()
            if s.raw[s.pos] == self.close:
                s.pos += 1
                raise StopIteration
        else:
            s.whitespace()
            if s.raw[s.pos] == self.close:
                s.pos += 1
                raise StopIteration
            s.expect(",")
        s.whitespace()
        name: str | None = None
        if self.key:
            name, s.pos = _DECODER.raw_decode(s.raw, s.pos)
            s.expect(":")
            s.whitespace()
        return name
