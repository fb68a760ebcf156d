"""Report formats of `gradguard check`: one module per `--output-format`.

The CLI gathers a `Report` (plain data); a format module turns it into the text written to
stdout. Format modules are imported only when chosen, to keep start-up fast.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from gradguard.core.findings import Finding, Fix, Position, Safety
from gradguard.core.text import SourceText

FORMATS = ("text", "json", "github", "sarif")


def printable(path: str) -> str:
    """A path as valid text: bytes of a file name that are not UTF-8 (which Python keeps as
    lone surrogates) are shown escaped, `caf\\xe9.py`, so every format stays valid UTF-8."""
    if path.isascii():
        return path
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


@dataclass(frozen=True)
class FileReport:
    """The findings left in one file, with the text they refer to."""

    path: str
    source: SourceText
    findings: tuple[Finding, ...]
    unsafe_fixes: bool = False

    def applicable(self, fix: Fix | None) -> bool:
        """True when `--fix` would apply `fix` under this file's fix policy (a fix the engine
        refused to offer, see `gradguard.core.fix_validation`, has no edits)."""
        return (
            fix is not None and (fix.safety is Safety.SAFE or self.unsafe_fixes) and bool(fix.edits)
        )


@dataclass(frozen=True)
class Failure:
    """A file that could not be checked: unreadable, not UTF-8, not parsable, a rule crashed."""

    path: str
    message: str
    position: Position | None = None

    def render(self) -> str:
        """`path:line:col: error: message` (1-based), or `path: error: message`."""
        if self.position is None:
            return f"{printable(self.path)}: error: {self.message}"
        line, column = self.position.line + 1, self.position.character + 1
        return f"{printable(self.path)}:{line}:{column}: error: {self.message}"


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
