"""Checking (and maybe fixing) one file: the unit of work of `gradguard check`.

`read` turns a path into its text, or into the outcome of a file that cannot be checked.
`check_file` checks one read file and, with `--fix`, writes the fixed text back; it runs in
the CLI's process or in a worker (`gradguard.parallel`) and returns a `FileOutcome` either
way, so a file reads the same in the report wherever it was checked. The fix is written by
the process that computed it: it holds the exact bytes the fix was computed from, which
`write_atomic` compares with the file before replacing it, and a failed write is reported
and followed by a fresh check of what is really in the file, all within this one unit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from gradguard.core.limits import size_problem
from gradguard.core.prefilter import mentions_torch
from gradguard.files import (
    DecodedSource,
    FileChangedError,
    NotRegularFileError,
    NotUtf8Error,
    TooLargeError,
    decode,
    read_bytes,
    write_atomic,
)
from gradguard.outcome import ERROR, WARNING, FileOutcome, Message

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from gradguard.cache import CacheEntry
    from gradguard.core.findings import Finding
    from gradguard.core.settings import Settings
    from gradguard.ipynb import CellLayout, Notebook

# Python's line breaks only: str.splitlines would also split at form feeds and U+2028.
_LINE = r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z"


@dataclass(frozen=True)
class Mode:
    """What to do besides reporting: `fix` writes fixes, `diff` only shows them."""

    fix: bool = False
    diff: bool = False

    @property
    def fixing(self) -> bool:
        """True when fixes are computed (`--fix` or `--diff`)."""
        return self.fix or self.diff

    @property
    def writing(self) -> bool:
        """True when fixed files are written (`--fix` without `--diff`)."""
        return self.fix and not self.diff


@dataclass(frozen=True)
class ReadFile:
    """A file's bytes as read, their decoded text and, for a notebook, its cells."""

    data: bytes
    decoded: DecodedSource
    notebook: Notebook | None = None

    @property
    def text(self) -> str:
        """The text the analysis sees: the file's, or the notebook's code cells joined."""
        return self.decoded.text if self.notebook is None else self.notebook.concatenated().text


@dataclass(frozen=True)
class FileTask:
    """One file to check: where it is, how it is named in messages, its text and settings.

    `writable` is False for a walked symlink that leads outside the walked folder (checked,
    never rewritten). `cache_entry`, when given, receives the outcome of a plain check.
    `notebook` is set for a Jupyter notebook (`source` is then its JSON text).
    """

    path: Path
    display: str
    source: DecodedSource
    settings: Settings
    mode: Mode
    writable: bool = True
    cache_entry: CacheEntry | None = None
    notebook: Notebook | None = None
    # Analyse it as part of its project: names imported from other project files known.
    whole_project: bool = True

    @property
    def trivial(self) -> bool:
        """True when the file certainly has nothing to report (see `needs_analysis`)."""
        if self.notebook is not None:
            return not needs_analysis(self.notebook.concatenated().text)
        return not needs_analysis(self.source.text)


def needs_analysis(text: str) -> bool:
    """False when the engine would skip `text` without a word: it is within the size limits
    and never mentions torch. Checking such a file needs neither the engine nor a worker."""
    return size_problem(text) is not None or mentions_torch(text)


def read(path: Path, display: str) -> ReadFile | FileOutcome:
    """Read and decode the file at `path`; an outcome with the reason when that fails."""
    try:
        data = read_bytes(path)
        decoded = decode(data)
        if path.suffix.lower() == ".ipynb":
            return _read_notebook(data, decoded)
        return ReadFile(data, decoded)
    except NotUtf8Error as exc:
        return FileOutcome((Message(ERROR, str(exc), exc.line, exc.column),))
    except TooLargeError as exc:
        return FileOutcome((Message(WARNING, str(exc)),))
    except NotRegularFileError as exc:
        return FileOutcome((Message(ERROR, f"cannot check: {exc}"),))
    except OSError as exc:
        return FileOutcome((Message(ERROR, f"cannot read: {exc.strerror or exc}"),))


def _read_notebook(data: bytes, decoded: DecodedSource) -> ReadFile | FileOutcome:
    """A notebook's cells, or why it cannot (or need not) be checked."""
    from gradguard.ipynb import NotebookError, SkippedNotebook, parse_notebook

    try:
        return ReadFile(data, decoded, parse_notebook(decoded.text))
    except SkippedNotebook as exc:
        return FileOutcome((Message(WARNING, f"skipped: {exc}"),))
    except NotebookError as exc:
        return FileOutcome((Message(ERROR, str(exc)),))


def check_file(task: FileTask) -> FileOutcome:
    """Check one file (fixing and writing it under `--fix`) and store a plain result in the
    cache when the task has an entry. A Python file or a notebook is checked as part of its
    project: the names it imports from other project files are known, and a cached result
    rests on those files' contents."""
    if not task.whole_project or task.trivial:
        return _check_one(task)
    from gradguard.project import session

    with session.checking(task.path):
        outcome = _check_one(task, store=False)
    if task.cache_entry is not None and outcome.cacheable:
        task.cache_entry.store(outcome, session.dependencies(task.path))
    return outcome


def _check_one(task: FileTask, *, store: bool = True) -> FileOutcome:
    """Check a notebook or a Python file; store a plain result when `store` says so."""
    if task.notebook is not None:
        from gradguard.notebook_check import check_notebook_file

        return check_notebook_file(task, task.notebook, store=store)
    return _check_plain_file(task, store=store)


def _check_plain_file(task: FileTask, *, store: bool = True) -> FileOutcome:
    """Check one Python file; store a plain result in the cache when `store` says so."""
    recorder = _Recorder(task.display, task.mode)
    decoded, settings = task.source, task.settings
    if not task.writable and task.mode.writing:
        recorder.warn("not fixed: a symbolic link to a file outside the checked folder")
        recorder.check_text(decoded, settings, fix=False)
        return recorder.outcome()
    new_text = recorder.check_text(decoded, settings)
    if new_text is not None and task.mode.writing:
        try:
            write_atomic(task.path, decoded.encode(new_text), expected=_original_bytes(decoded))
        except OSError as exc:
            reason = str(exc) if isinstance(exc, FileChangedError) else exc.strerror or exc
            recorder.fail(f"not fixed: cannot write the file: {reason}")
            # Report what is really in the file: nothing was fixed.
            recorder.forget_fixes()
            recorder.check_text(decoded, settings, fix=False)
    outcome = recorder.outcome()
    if store and task.cache_entry is not None and outcome.cacheable:
        task.cache_entry.store(outcome)
    return outcome


def check_stdin(
    display: str, decoded: DecodedSource, settings: Settings, mode: Mode
) -> FileOutcome:
    """Check text read from standard input (the outcome's `new_text` is what `--fix` prints)."""
    recorder = _Recorder(display, mode)
    recorder.check_text(decoded, settings)
    return recorder.outcome()


def _original_bytes(decoded: DecodedSource) -> bytes:
    return decoded.encode(decoded.text)


@dataclass
class _Recorder:
    """Collects one file's outcome while it is checked."""

    display: str
    mode: Mode
    messages: list[Message] = field(default_factory=list)
    findings: tuple[Finding, ...] | None = None
    new_text: str | None = None
    fixed: int = 0
    would_fix: int = 0
    diff: str = ""
    cells: tuple[CellLayout, ...] | None = None

    def outcome(self) -> FileOutcome:
        """The outcome recorded so far."""
        return FileOutcome(
            tuple(self.messages),
            self.findings,
            self.new_text,
            self.fixed,
            self.would_fix,
            self.diff,
            self.cells,
        )

    def warn(self, message: str) -> None:
        """A file left out on purpose (too large, not a regular file): named, not an error."""
        self.messages.append(Message(WARNING, message))

    def fail(
        self, message: str, line: int = 0, column: int = 0, *, lasting: bool = True, cell: int = 0
    ) -> None:
        """The file could not be (fully) checked or fixed."""
        self.messages.append(Message(ERROR, message, line, column, lasting, cell))

    def forget_fixes(self) -> None:
        """Drop the fixes counted for this file and its report (the fixed text was not written)."""
        self.fixed = 0
        self.findings = None
        self.new_text = None
        self.cells = None

    def check_text(
        self, decoded: DecodedSource, settings: Settings, *, fix: bool = True
    ) -> str | None:
        """Record the findings for the text; return the fixed text if fixing changed it."""
        if not needs_analysis(decoded.text):
            self.findings = ()  # what the engine says about it, without importing the engine
            return None
        try:
            return self._check_text(decoded, settings, fix=fix)
        except Exception as exc:  # a GradGuard bug on one file must not hide the others
            import logging
            import traceback

            log = logging.getLogger(__name__)
            log.debug("internal error on %s:\n%s", self.display, traceback.format_exc())
            message = f"internal error: {type(exc).__name__}: {exc} (please report)"
            self.fail(message, lasting=False)
            return None

    def _check_text(self, decoded: DecodedSource, settings: Settings, *, fix: bool) -> str | None:
        from gradguard.core.engine import ParseError, check_source, fix_source, parse
        from gradguard.core.text import SourceText

        display = self.display
        text = decoded.text
        new_text: str | None = None
        if self.mode.fixing and fix:
            fixed = fix_source(text, path=display, settings=settings, unsafe=settings.unsafe_fixes)
            result = fixed.remaining
            if fixed.text != text:
                # The engine already refuses unparsable results; this guard makes "never
                # write a file that does not parse" a property of the CLI as well.
                if isinstance(parse(SourceText(fixed.text)), ParseError):
                    self.fail("a fix produced code that does not parse; not written")
                    result = check_source(text, path=display, settings=settings)
                else:
                    new_text = fixed.text
                    self._count_fixes(text, fixed.text, fixed.applied)
        else:
            result = check_source(text, path=display, settings=settings)
        if result.too_large is not None:
            self.warn(result.too_large)
        if result.parse_error is not None:
            at = result.parse_error.range.start
            self.fail(result.parse_error.message, at.line + 1, at.character + 1)
        for error in result.rule_errors:
            self.fail(f"rule {error.code} crashed: {error.message}", lasting=False)
        self.findings = tuple(_in_edit_order(f) for f in result.findings)
        self.new_text = new_text
        return new_text

    def _count_fixes(self, before: str, after: str, applied: int) -> None:
        if self.mode.diff:
            self.would_fix += applied
            self.diff += unified_diff(self.display, before, after)
        else:
            self.fixed += applied


def _in_edit_order(finding: Finding) -> Finding:
    """`finding` with each fix's edits in document order.

    A fix's edits apply together, so their order carries no meaning, but the JSON report
    lists them; some rules collect them in an order that varies from one process to the next
    (it follows where objects sit in memory), and the report must not.
    """
    from dataclasses import replace

    from gradguard.core.findings import Fix

    if not finding.fixes:
        return finding
    fixes = tuple(
        Fix(
            fix.title,
            fix.safety,
            tuple(sorted(fix.edits, key=lambda e: (e.range.start, e.range.end))),
        )
        for fix in finding.fixes
    )
    return replace(finding, fixes=fixes)


def unified_diff(display: str, before: str, after: str) -> str:
    """The diff `--diff` prints for one file (line breaks kept as they are)."""
    import difflib

    lines = difflib.unified_diff(
        re.findall(_LINE, before),
        re.findall(_LINE, after),
        fromfile=display,
        tofile=display,
    )
    out: list[str] = []
    for line in lines:
        out.append(line)
        if not line.endswith(("\n", "\r")):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)
