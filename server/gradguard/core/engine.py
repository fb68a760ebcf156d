"""The engine: one pure entry point shared by the CLI and the language server.

`check_source` parses with `ast`, computes the shared dataflow facts once, runs every
enabled rule (a crashing rule is reported and the others still run), drops suppressed
findings and returns plain data. Every fix is checked before it is offered
(`fix_validation`: the edited code parses and keeps its comments). `fix_source` applies
fixes round by round and drops any fix whose result does not parse.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import re
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gradguard.analysis.node_cache import tree_scope
from gradguard.core.edits import apply_edits, compatible_fixes
from gradguard.core.findings import Finding, Fix, Position, Range, Safety
from gradguard.core.fix_validation import FixValidator
from gradguard.core.limits import size_problem
from gradguard.core.prefilter import mentions_torch
from gradguard.core.rule import Rule, RuleContext, all_rules
from gradguard.core.settings import Settings
from gradguard.core.suppression import Suppressions
from gradguard.core.text import FOREIGN_LINE_BASE, SourceText

if TYPE_CHECKING:
    import logging

    from gradguard.analysis.model import ModuleAnalysis


def _log() -> logging.Logger:
    """This module's logger: logging is imported when something is logged (start-up)."""
    import logging

    return logging.getLogger(__name__)


# Recursive `ast` walks on pathological nesting are caught, not allowed to escape.
_PARSE_FAILURES = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)


@dataclass(frozen=True)
class ParseError:
    """Why a document could not be analysed, and where."""

    message: str
    range: Range


@dataclass(frozen=True)
class RuleError:
    """A rule crashed on this document; the other rules' findings are still reported."""

    code: str
    message: str


@dataclass(frozen=True)
class CheckResult:
    """The outcome of checking one document."""

    findings: tuple[Finding, ...]
    parse_error: ParseError | None = None
    rule_errors: tuple[RuleError, ...] = ()
    skipped: bool = False
    too_large: str | None = None  # why the document was not analysed (see core.limits)


@dataclass(frozen=True)
class FixResult:
    """The outcome of `fix_source`: the new text, how many fixes were applied, what remains."""

    text: str
    applied: int
    remaining: CheckResult


def parse(source: SourceText, filename: str = "<unknown>") -> ast.Module | ParseError:
    """Parse with CPython's parser; return a `ParseError` instead of raising."""
    _allow_deep_expressions()  # CPython 3.11 bounds the parser's nesting by this limit too
    try:
        text = source.text[1:] if source.has_bom else source.text
        with warnings.catch_warnings():
            # SyntaxWarning for invalid escapes etc.: not ours to print, and under `-W error`
            # they would turn a valid file into a parse error.
            warnings.simplefilter("ignore")
            return ast.parse(text, filename=filename)
    except SyntaxError as exc:
        line = max((exc.lineno or 1) - 1, 0)
        line = min(line, source.line_count - 1)
        column = max((exc.offset or 1) - 1, 0)
        start = Position(line, min(column, len(source.line(line))))
        end = Position(line, len(source.line(line)))
        return ParseError(f"SyntaxError: {exc.msg}", Range(start, end))
    except _PARSE_FAILURES as exc:
        start = Position(0, 0)
        return ParseError(f"{type(exc).__name__}: {exc}", Range(start, start))


def selected_rules(settings: Settings, path: str | None) -> list[Rule]:
    """The rules enabled for `path` under `settings`."""
    return [rule for rule in all_rules() if settings.is_enabled(rule.code, path)]


def check_source(
    text: str,
    *,
    path: str | None = None,
    settings: Settings | None = None,
    source: SourceText | None = None,
) -> CheckResult:
    """Analyse one document and return its findings (never raises on user input)."""
    settings = settings or Settings()
    if (problem := size_problem(text)) is not None:
        return CheckResult(findings=(), skipped=True, too_large=problem)
    if not mentions_torch(text):
        return CheckResult(findings=(), skipped=True)
    source = source or SourceText(text)
    with collector_paused(), tree_scope():
        tree = parse(source, path or "<unknown>")
        if isinstance(tree, ParseError):
            return CheckResult(findings=(), parse_error=tree)
        return check_tree(source, tree, path=path, settings=settings)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a module is parsed and analysed.

    Both allocate many small objects while a large tree is alive, and every full collection
    walks that whole tree again: on big files this made the check superlinear. Nothing built
    here forms cycles that outlive the call, so collection can wait until the end.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def check_tree(
    source: SourceText,
    tree: ast.Module,
    *,
    path: str | None,
    settings: Settings,
    analysed: ModuleAnalysis | None = None,
) -> CheckResult:
    """Run the enabled rules on an already parsed module (with `analysed`: its analysis,
    made by the caller, as `gradguard.analysis.incremental` does)."""
    from gradguard.analysis.model import analyse_module
    from gradguard.project.session import project_imports

    rules = selected_rules(settings, path)
    _allow_deep_expressions()
    try:
        if analysed is not None:
            analysis = analysed
        else:
            analysis = analyse_module(tree, source.text, imports=project_imports())
    except RecursionError:
        message = "the file nests too deeply to analyse"
        return CheckResult((), ParseError(message, Range(Position(0, 0), Position(0, 0))))
    context = RuleContext(source=source, tree=tree, analysis=analysis, path=path)
    suppressions: Suppressions | None = None  # tokenizing is scanned only when needed
    validator = FixValidator(source, tree)
    findings: list[Finding] = []
    errors: list[RuleError] = []
    for rule in rules:
        try:
            produced = list(_checked_here(rule, context))
        except Exception as exc:  # a rule bug must not take the other rules down
            import traceback  # only when a rule crashed (start-up)

            _log().error("rule %s crashed on %s:\n%s", rule.code, path, traceback.format_exc())
            errors.append(RuleError(rule.code, f"{type(exc).__name__}: {exc}"))
            continue
        for finding in _in_this_file(produced):
            if suppressions is None:
                suppressions = Suppressions.scan(source)
            if suppressions.suppresses(finding.code, finding.range.start.line):
                continue
            severity = settings.severity_for(finding.code, finding.severity)
            fixes = validator.guard(finding.fixes)
            findings.append(replace(finding, severity=severity, fixes=fixes))
    findings.sort(key=lambda f: (f.range.start, f.code))
    return CheckResult(findings=tuple(_dedupe(findings)), rule_errors=tuple(errors))


# The dataflow pass recurses about twice per nesting level of an expression; CPython parses
# left-nested chains such as a 2,000-term sum, which the default limit of 1,000 frames
# cannot analyse. Python-to-Python calls do not use the C stack on 3.11+, so a higher limit
# is safe; it is only ever raised, never lowered.
_RECURSION_LIMIT = 12_000


def _allow_deep_expressions() -> None:
    if sys.getrecursionlimit() < _RECURSION_LIMIT and sys.version_info >= (3, 11):
        sys.setrecursionlimit(_RECURSION_LIMIT)


def _checked_here(rule: Rule, context: RuleContext) -> Iterator[Finding]:
    """The rule's findings; one built from positions of another project file (see
    `SourceText.foreign_reads`) keeps no fix (it would edit that file's code in this one) and
    is placed by `_in_this_file`."""
    source = context.source
    seen = source.foreign_reads
    for finding in rule.check(context):
        if source.foreign_reads != seen:
            seen = source.foreign_reads
            # "(line 0)": a line number taken from the other file's node, nowhere here.
            message = _LINE_ZERO.sub("", finding.message)
            finding = replace(finding, message=message, fixes=())
        yield finding


_LINE_ZERO = re.compile(r" \(line 0\)")


def _in_this_file(findings: list[Finding]) -> Iterator[Finding]:
    """The findings placed in this document, without related entries in other files.

    A finding may rest on a fact of another project file (`gradguard.project`), never be
    reported at its place: one whose cause lies in another file moves to its first related
    place in this file (the call that fails here), without fixes (they would edit the other
    file's code), and is dropped when it has none.
    """
    for finding in findings:
        message = _FOREIGN_LINE.sub(_foreign_line, finding.message)
        if message != finding.message:
            finding = replace(finding, message=message)
        related = tuple(r for r in finding.related if r.range.start.line >= 0)
        if finding.range.start.line >= 0:
            if len(related) != len(finding.related):
                finding = replace(finding, related=related)
            yield finding
        elif related:
            message = f"{finding.message} {_ELSEWHERE}"
            yield replace(
                finding, message=message, range=related[0].range, related=related[1:], fixes=()
            )


_ELSEWHERE = "(The cause is in another file of the project.)"
_FOREIGN_LINE = re.compile(rf"line (\d{{{len(str(FOREIGN_LINE_BASE))},}})")


def _foreign_line(match: re.Match[str]) -> str:
    return f"line {int(match.group(1)) - FOREIGN_LINE_BASE} of another file of the project"


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple[str, Range]] = set()
    unique: list[Finding] = []
    for finding in findings:
        key = (finding.code, finding.range)
        if key not in seen:
            seen.add(key)
            unique.append(finding)
    return unique


def applicable_fixes(
    findings: tuple[Finding, ...], *, unsafe: bool, codes: frozenset[str] | None = None
) -> list[Fix]:
    """The first fix of each finding that the fix policy allows."""
    fixes: list[Fix] = []
    for finding in findings:
        if codes is not None and finding.code not in codes:
            continue
        fix = finding.fix
        if fix is not None and (unsafe or fix.safety is Safety.SAFE) and fix.edits:
            fixes.append(fix)
    return fixes


def _apply_parsable(source: SourceText, fixes: list[Fix]) -> tuple[str, list[Fix]]:
    """Apply `fixes` together; should the result not parse (each fix was checked alone, but
    two may clash), add them one at a time instead and drop each one that breaks the code.
    Returns the new text and the fixes applied."""
    candidate = apply_edits(source, [edit for fix in fixes for edit in fix.edits])
    if not isinstance(parse(SourceText(candidate)), ParseError):
        return candidate, fixes
    kept: list[Fix] = []
    candidate = source.text
    for fix in fixes:
        attempt = apply_edits(source, [edit for f in [*kept, fix] for edit in f.edits])
        if isinstance(parse(SourceText(attempt)), ParseError):
            _log().error("fix %r produced unparsable code together with others; dropped", fix.title)
            continue
        kept.append(fix)
        candidate = attempt
    return candidate, kept


def fix_source(
    text: str,
    *,
    path: str | None = None,
    settings: Settings | None = None,
    unsafe: bool = False,
    codes: frozenset[str] | None = None,
    max_rounds: int = 10,
) -> FixResult:
    """Apply fixes until none applies; never return text that does not parse."""
    settings = settings or Settings()
    result = check_source(text, path=path, settings=settings)
    applied = 0
    for _ in range(max_rounds):
        if result.parse_error is not None:
            break
        source = SourceText(text)
        fixes = compatible_fixes(
            source, applicable_fixes(result.findings, unsafe=unsafe, codes=codes)
        )
        if not fixes:
            break
        candidate, fixes = _apply_parsable(source, fixes)
        if not fixes:
            break
        text = candidate
        applied += len(fixes)
        result = check_source(text, path=path, settings=settings)
    return FixResult(text=text, applied=applied, remaining=result)
