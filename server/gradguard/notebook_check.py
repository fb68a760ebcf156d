"""Checking (and maybe fixing) one Jupyter notebook file: `file_check` for `.ipynb` files.

The code cells are analysed as one module (`gradguard.core.notebook`), exactly as the
language server does. Findings keep positions in that module; the outcome carries each
cell's layout (`CellLayout`) so the report can show `notebook.ipynb:cell 3:12:5`. Messages
that cite a line ("the loop at line 37") are rewritten to cite it in its cell.

Fixing works cell by cell: a fix is applied only when each of its edits lies inside one
cell and touches no line of IPython syntax (which the analysis saw blanked out); its edits
are applied to the cells' own text, and the notebook's JSON is written back with only the
changed cells' `"source"` replaced (`gradguard.ipynb.Notebook.rewrite`). The rewritten file
is read back before it is written: its cells must hold exactly the fixed text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gradguard.core.notebook import Cell, ConcatenatedNotebook, cite_finding, concatenate
from gradguard.file_check import (
    FileTask,
    Mode,
    _in_edit_order,
    _Recorder,
    needs_analysis,
    unified_diff,
)
from gradguard.files import FileChangedError, write_atomic
from gradguard.ipynb import Notebook, NotebookError, parse_notebook

if TYPE_CHECKING:
    from gradguard.core.engine import CheckResult
    from gradguard.core.findings import Finding, Fix, TextEdit
    from gradguard.core.settings import Settings
    from gradguard.outcome import FileOutcome

MAX_ROUNDS = 10


@dataclass(frozen=True)
class NotebookFix:
    """What fixing a notebook's cells did: the cells' new texts (by cell number), how many
    fixes were applied, and the check of the result."""

    texts: dict[int, str]
    applied: int
    remaining: CheckResult


def check_notebook_file(task: FileTask, notebook: Notebook, *, store: bool = True) -> FileOutcome:
    """Check one notebook (fixing and writing it under `--fix`); store a plain result in
    the cache when the task has an entry and `store` says so."""
    recorder = _Recorder(task.display, task.mode)
    if not task.writable and task.mode.writing:
        recorder.warn("not fixed: a symbolic link to a file outside the checked folder")
        _check(recorder, notebook, task.settings, fix=False)
        return recorder.outcome()
    texts = _check(recorder, notebook, task.settings, fix=True)
    if texts is not None and task.mode.writing:
        problem = _write(task, notebook, texts)
        if problem is not None:
            recorder.fail(f"not fixed: {problem}")
            recorder.forget_fixes()
            _check(recorder, notebook, task.settings, fix=False)
    outcome = recorder.outcome()
    if store and task.cache_entry is not None and outcome.cacheable:
        task.cache_entry.store(outcome)
    return outcome


def check_notebook_stdin(
    display: str, notebook: Notebook, settings: Settings, mode: Mode
) -> tuple[FileOutcome, str | None]:
    """Check a notebook read from standard input; also returns its fixed JSON text when
    fixing changed it (what `--fix` prints)."""
    recorder = _Recorder(display, mode)
    texts = _check(recorder, notebook, settings, fix=True)
    return recorder.outcome(), None if texts is None else notebook.rewrite(texts)


def _write(task: FileTask, notebook: Notebook, texts: Mapping[int, str]) -> str | None:
    """Write the fixed notebook; the reason when it was not written."""
    new_raw = notebook.rewrite(texts)
    try:
        written = parse_notebook(new_raw)
    except NotebookError as exc:  # a bug of ours: never write a file we cannot read back
        return f"the rewritten notebook would not be valid ({exc}); not written"
    if {c.number: c.text for c in written.cells} != {**_texts(notebook), **texts}:
        return "the rewritten notebook would not hold the fixed cells; not written"
    original = task.source.encode(notebook.raw)
    try:
        write_atomic(task.path, task.source.encode(new_raw), expected=original)
    except OSError as exc:
        reason = str(exc) if isinstance(exc, FileChangedError) else exc.strerror or exc
        return f"cannot write the file: {reason}"
    return None


def _texts(notebook: Notebook) -> dict[int, str]:
    return {cell.number: cell.text for cell in notebook.cells}


def _check(
    recorder: _Recorder, notebook: Notebook, settings: Settings, *, fix: bool
) -> dict[int, str] | None:
    """Record the notebook's findings; return the fixed cells' texts if fixing changed any."""
    joined = notebook.concatenated()
    recorder.cells = notebook.layout()
    if not needs_analysis(joined.text):
        recorder.findings = ()
        return None
    try:
        return _analyse(recorder, notebook, settings, fix=fix)
    except Exception as exc:  # a GradGuard bug on one file must not hide the others
        recorder.fail(f"internal error: {type(exc).__name__}: {exc} (please report)", lasting=False)
        return None


def _analyse(
    recorder: _Recorder, notebook: Notebook, settings: Settings, *, fix: bool
) -> dict[int, str] | None:
    from gradguard.core.engine import check_source

    display = recorder.display
    if not (recorder.mode.fixing and fix):
        joined = notebook.concatenated()
        _record_result(recorder, joined, check_source(joined.text, path=display, settings=settings))
        return None
    fixed = fix_notebook(notebook, path=display, settings=settings)
    before = _texts(notebook)
    changed = {n: t for n, t in fixed.texts.items() if t != before[n]}
    if not changed:
        _record_result(recorder, notebook.concatenated(), fixed.remaining)
        return None
    _count(recorder, notebook, changed, fixed.applied)
    after = parse_notebook(notebook.rewrite(changed))
    recorder.cells = after.layout()
    joined = after.concatenated()
    _record_result(recorder, joined, fixed.remaining)
    recorder.new_text = joined.text
    return changed


def _count(
    recorder: _Recorder, notebook: Notebook, changed: Mapping[int, str], applied: int
) -> None:
    if recorder.mode.diff:
        recorder.would_fix += applied
        before = _texts(notebook)
        for number, text in sorted(changed.items()):
            recorder.diff += unified_diff(f"{recorder.display}:cell {number}", before[number], text)
    else:
        recorder.fixed += applied


def _record_result(recorder: _Recorder, joined: ConcatenatedNotebook, result: CheckResult) -> None:
    """The findings (messages citing cell lines), parse error and crashes of one check."""
    if result.too_large is not None:
        recorder.warn(result.too_large)
    if result.parse_error is not None:
        at = result.parse_error.range.start
        place = joined.locate(at.line)
        cell, line = (int(place[0]), place[1]) if place is not None else (0, at.line)
        message = joined.cite_cells(result.parse_error.message, at.line)
        recorder.fail(message, line + 1, at.character + 1, cell=cell)
    for error in result.rule_errors:
        recorder.fail(f"rule {error.code} crashed: {error.message}", lasting=False)
    recorder.findings = tuple(_cited(joined, f) for f in result.findings)


def _cited(joined: ConcatenatedNotebook, finding: Finding) -> Finding:
    """`finding` with every line its messages cite counted in that line's cell."""
    return _in_edit_order(cite_finding(joined, finding))


# -- fixing ------------------------------------------------------------------------------------


def fix_notebook(
    notebook: Notebook, *, path: str | None, settings: Settings, max_rounds: int = MAX_ROUNDS
) -> NotebookFix:
    """Apply fixes cell by cell until none applies; the result always parses."""
    from gradguard.core.edits import compatible_fixes
    from gradguard.core.engine import applicable_fixes, check_source
    from gradguard.core.text import SourceText

    texts = _texts(notebook)
    joined = _join(texts)
    result = check_source(joined.text, path=path, settings=settings)
    applied = 0
    for _ in range(max_rounds):
        if result.parse_error is not None:
            break
        allowed = applicable_fixes(result.findings, unsafe=settings.unsafe_fixes)
        confined = [f for f in allowed if _confined(joined, f)]
        fixes = compatible_fixes(SourceText(joined.text), confined)
        if not fixes:
            break
        texts_after, kept = _apply_parsable(texts, joined, fixes)
        if not kept:
            break
        texts = texts_after
        applied += len(kept)
        joined = _join(texts)
        result = check_source(joined.text, path=path, settings=settings)
    return NotebookFix(texts, applied, result)


def _join(texts: Mapping[int, str]) -> ConcatenatedNotebook:
    return concatenate([Cell(str(number), text) for number, text in texts.items()])


def _confined(joined: ConcatenatedNotebook, fix: Fix) -> bool:
    """True when each edit of `fix` lies in one cell and touches no blanked IPython line."""
    for edit in fix.edits:
        start, end = edit.range.start, edit.range.end
        span = joined.span_at(start.line)
        if span is None or end.line >= span.first_line + span.line_count:
            return False
        last = end.line if end.character > 0 or end.line == start.line else end.line - 1
        if any(line in joined.blanked for line in range(start.line, last + 1)):
            return False
    return True


def _apply_parsable(
    texts: Mapping[int, str], joined: ConcatenatedNotebook, fixes: list[Fix]
) -> tuple[dict[int, str], list[Fix]]:
    """Apply `fixes` together; should the cells then not parse, add them one at a time and
    drop each one that breaks the code. Returns the new texts and the fixes applied."""
    candidate = _apply(texts, joined, fixes)
    if _parses(candidate):
        return candidate, fixes
    kept: list[Fix] = []
    candidate = dict(texts)
    for fix in fixes:
        attempt = _apply(texts, joined, [*kept, fix])
        if _parses(attempt):
            kept.append(fix)
            candidate = attempt
    return candidate, kept


def _apply(
    texts: Mapping[int, str], joined: ConcatenatedNotebook, fixes: list[Fix]
) -> dict[int, str]:
    """The cells' texts with the fixes' edits applied, each in its own cell."""
    from gradguard.core.edits import apply_edits
    from gradguard.core.findings import Position, Range, TextEdit
    from gradguard.core.text import SourceText

    by_cell: dict[int, list[TextEdit]] = {}
    for edit in (e for fix in fixes for e in fix.edits):
        span = joined.span_at(edit.range.start.line)
        assert span is not None  # `_confined` made sure
        shift = span.first_line
        start, end = edit.range.start, edit.range.end
        moved = Range(
            Position(start.line - shift, start.character), Position(end.line - shift, end.character)
        )
        by_cell.setdefault(int(span.uri), []).append(TextEdit(moved, edit.new_text))
    new = dict(texts)
    for number, edits in by_cell.items():
        new[number] = apply_edits(SourceText(texts[number]), edits)
    return new


def _parses(texts: Mapping[int, str]) -> bool:
    from gradguard.core.engine import ParseError, parse
    from gradguard.core.text import SourceText

    return not isinstance(parse(SourceText(_join(texts).text)), ParseError)
