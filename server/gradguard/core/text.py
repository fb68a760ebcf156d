"""Source text with line tables: the single place where positions change encoding.

`ast` reports columns as UTF-8 byte offsets, GradGuard works in code points, and LSP
clients speak UTF-16 code units by default (UTF-8 or UTF-32 when negotiated).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate

from gradguard.core.findings import Position, Range

# Trees of other project files are shifted down by this many lines (`gradguard.project`),
# so a position taken from one of their nodes can never be mistaken for one of this file.
FOREIGN_LINE_BASE = 100_000_000


# Where a node of another project file is in this document: nowhere (line -1).
FOREIGN_POSITION = Position(-1, 0)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LONE_CR = re.compile(r"\r(?!\n)")
# A block header at column 0 (`def f():`, `with x:  # why`), then blank or comment lines, then
# the first line of its body: its leading whitespace is the file's indentation step.
# `^` under MULTILINE starts a line only after `\n`; a lone `\r` (old Mac breaks) starts one too.
_FIRST_BLOCK = re.compile(
    r"(?:^|(?<=\r))[^\s#][^\r\n]*:[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n)"
    r"(?:[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n))*([ \t]+)\S",
    re.MULTILINE,
)


@dataclass(frozen=True)
class SourceText:
    """An immutable document text with fast line access and position conversions."""

    text: str
    # How many times a position of another project file was asked for (see `foreign_reads`).
    _foreign: list[int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_foreign", [0])

    @cached_property
    def _starts(self) -> tuple[int, ...]:
        """The offset each line starts at: made when a position is first asked for (most
        checks of an edited document report nothing and never ask)."""
        text = self.text
        if "\r" in text:
            return (0, *(m.end() for m in _LINE_BREAK.finditer(text)))
        # `\n` breaks only: a line starts one past the end of the one before.
        return tuple(accumulate((len(line) + 1 for line in text.split("\n")[:-1]), initial=0))

    @property
    def foreign_reads(self) -> int:
        """How many times a line, position or offset of another project file's node was
        asked for: whatever was built from them (a fix, a message) is about that file."""
        return self._foreign[0]

    def _foreign_read(self) -> None:
        self._foreign[0] += 1

    @property
    def has_bom(self) -> bool:
        """True when the text starts with a byte-order mark (which the parser must not see)."""
        return self.text.startswith("\ufeff")

    @property
    def line_count(self) -> int:
        """Number of lines (a trailing newline starts one more, empty, line)."""
        return len(self._starts)

    def line(self, index: int) -> str:
        """Line `index` (0-based) without its line break."""
        if index >= FOREIGN_LINE_BASE - 1:
            self._foreign_read()
            return ""  # a line of another project file: nothing of this document
        start = self._starts[index]
        end = self._starts[index + 1] if index + 1 < len(self._starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def lines(self) -> Iterator[str]:
        """Every line without its line break."""
        for i in range(self.line_count):
            yield self.line(i)

    @cached_property
    def tokenizable(self) -> str:
        """The text with every lone `\\r` turned into `\\n`: same length, same positions.

        Python's parser accepts old-Mac `\\r` line breaks, but `tokenize` reading lines from
        a stream only splits at `\\n` and would see one long line.
        """
        return _LONE_CR.sub("\n", self.text) if "\r" in self.text else self.text

    @cached_property
    def newline(self) -> str:
        """The document's dominant line break, used when fixes insert lines."""
        m = _LINE_BREAK.search(self.text)
        return m.group(0) if m else "\n"

    @cached_property
    def indent_unit(self) -> str:
        """The document's indentation step (that of its first indented block), used when fixes
        indent lines; four spaces when nothing is indented."""
        m = _FIRST_BLOCK.search(self.text)
        return m.group(1) if m else "    "

    def offset(self, pos: Position) -> int:
        """Absolute code-point offset of `pos` (clamped to the document)."""
        if pos.line < 0:
            self._foreign_read()  # see `foreign_reads`: what is built from it is dropped
        line = min(max(pos.line, 0), len(self._starts) - 1)
        return min(self._starts[line] + max(pos.character, 0), self._line_end(line))

    def _line_end(self, line: int) -> int:
        return self._starts[line] + len(self.line(line))

    def position_at(self, offset: int) -> Position:
        """Inverse of `offset`."""
        lo, hi = 0, len(self._starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self._starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return Position(lo, offset - self._starts[lo])

    def end(self) -> Position:
        """Position just past the last character."""
        return self.position_at(len(self.text))

    def slice(self, rng: Range) -> str:
        """The text covered by `rng`."""
        return self.text[self.offset(rng.start) : self.offset(rng.end)]

    # -- conversions -------------------------------------------------------------------------

    def from_ast(self, lineno: int, col_offset: int) -> Position:
        """Convert an `ast` position (1-based line, UTF-8 byte column) to a `Position`."""
        if lineno >= FOREIGN_LINE_BASE:
            self._foreign_read()
            return FOREIGN_POSITION  # a node of another project file: no place here
        line = min(max(lineno - 1, 0), self.line_count - 1)
        text = self.line(line)
        bom = 1 if line == 0 and self.has_bom else 0
        text = text[bom:]
        if text.isascii():
            return Position(line, bom + min(col_offset, len(text)))
        prefix = text.encode("utf-8")[:col_offset].decode("utf-8", "ignore")
        return Position(line, bom + len(prefix))

    def to_units(self, pos: Position, encoding: str) -> int:
        """Column of `pos` in code units of `encoding` ("utf-16", "utf-8" or "utf-32")."""
        if encoding == "utf-32" or pos.line >= self.line_count:
            return pos.character
        prefix = self.line(pos.line)[: pos.character]
        if prefix.isascii():
            return len(prefix)
        if encoding == "utf-8":
            return len(prefix.encode("utf-8"))
        return len(prefix.encode("utf-16-le")) // 2

    def from_units(self, line: int, units: int, encoding: str) -> Position:
        """Inverse of `to_units`: a client position in `encoding` units to a `Position`."""
        if line >= self.line_count:
            return self.end()
        text = self.line(max(line, 0))
        if encoding == "utf-32" or text.isascii():
            return Position(line, min(max(units, 0), len(text)))
        count = 0
        for index, char in enumerate(text):
            if count >= units:
                return Position(line, index)
            if encoding == "utf-8":
                count += len(char.encode("utf-8"))
            else:
                count += 2 if ord(char) > 0xFFFF else 1
        return Position(line, len(text))
