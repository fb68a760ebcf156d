"""Findings are plain frozen data shared by the CLI and the language server."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field


class Severity(str, enum.Enum):
    """How loudly a finding is reported; maps 1:1 onto LSP severities."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    HINT = "hint"


class Safety(str, enum.Enum):
    """Whether a fix keeps the program's meaning (`safe`) or may change behaviour (`unsafe`)."""

    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True, order=True)
class Position:
    """A place in a document: 0-based line and 0-based column in code points (Python `str` index).

    The one place that converts to other encodings (UTF-8 bytes from `ast`, UTF-16 for LSP)
    is `gradguard.core.text.SourceText`.
    """

    line: int
    character: int


@dataclass(frozen=True)
class Range:
    """A half-open span `[start, end)` of a document."""

    start: Position
    end: Position

    def contains(self, other: Range) -> bool:
        """True when `other` lies entirely inside this range."""
        return self.start <= other.start and other.end <= self.end


@dataclass(frozen=True)
class Related:
    """A location that belongs to a finding's proof (the failing backward(), the loop header)."""

    range: Range
    message: str


@dataclass(frozen=True)
class TextEdit:
    """Replace `range` with `new_text`."""

    range: Range
    new_text: str


EditBuilder = Callable[[], "tuple[TextEdit, ...] | None"]


class Fix:
    """A proposed change: a title for menus, its safety, and the edits that make it.

    `edits` may be given as a function that computes them on first use: fixes that need
    libcst build their edits only when a front end applies or serialises them, so a plain
    check never pays for importing libcst. A builder that returns None yields no edits.
    """

    __slots__ = ("_edits", "safety", "title")

    def __init__(
        self, title: str, safety: Safety, edits: tuple[TextEdit, ...] | EditBuilder
    ) -> None:
        self.title = title
        self.safety = safety
        self._edits = edits

    @property
    def edits(self) -> tuple[TextEdit, ...]:
        """The text edits (computed and cached on first access when built lazily)."""
        if callable(self._edits):
            self._edits = tuple(self._edits() or ())
        return self._edits

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Fix):
            return NotImplemented
        return (self.title, self.safety, self.edits) == (other.title, other.safety, other.edits)

    def __hash__(self) -> int:
        return hash((self.title, self.safety))

    def __repr__(self) -> str:
        return f"Fix(title={self.title!r}, safety={self.safety.value!r})"


@dataclass(frozen=True)
class Finding:
    """One diagnostic produced by one rule."""

    code: str
    name: str
    severity: Severity
    message: str
    range: Range
    related: tuple[Related, ...] = ()
    fixes: tuple[Fix, ...] = ()
    url: str = ""
    tags: tuple[str, ...] = field(default=())

    @property
    def fix(self) -> Fix | None:
        """The preferred fix, if any (the first one)."""
        return self.fixes[0] if self.fixes else None
