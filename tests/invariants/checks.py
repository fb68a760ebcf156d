"""The engine's invariants as reusable checks: on any input, and for every fix it offers.

Used by the fuzz tests, the invariant tests (corpus, examples, the rules' INVALID examples and
their layout variants) and `benchmarks/fuzz_long.py`. Each check raises `AssertionError` with
the offending text in the message, so a failure is its own reproducer.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import tokenize
import warnings
from collections import Counter
from dataclasses import dataclass

from gradguard.core.edits import apply_edits
from gradguard.core.engine import CheckResult, check_source, fix_source
from gradguard.core.findings import Finding, Fix, Range
from gradguard.core.text import SourceText


@dataclass
class Tally:
    """What a run of checks covered."""

    programs: int = 0
    findings: int = 0
    fixes: int = 0
    unmasked: int = 0
    second_causes: int = 0

    def add(self, other: Tally) -> None:
        """Accumulate another tally."""
        self.programs += other.programs
        self.findings += other.findings
        self.fixes += other.fixes
        self.unmasked += other.unmasked
        self.second_causes += other.second_causes


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def parses(text: str) -> bool:
    """True when CPython's parser accepts `text` (a leading BOM is not part of the code)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text.removeprefix("\ufeff"))
    except (SyntaxError, ValueError):
        return False
    return True


def comment_tokens(text: str) -> Counter[str]:
    """The multiset of `#` comments in `text` (tokens, so `"#"` inside strings is not one)."""
    found: Counter[str] = Counter()
    readline = io.StringIO(text.removeprefix("\ufeff"), newline=None).readline
    for tok in tokenize.generate_tokens(readline):
        if tok.type == tokenize.COMMENT:
            found[tok.string] += 1
    return found


def _line_comments(deleted: str, inserted: str) -> Counter[str]:
    """Comments of the lines in `deleted` whose code does not reappear in `inserted`."""
    found: Counter[str] = Counter()
    for line in SourceText(deleted).lines():
        with contextlib.suppress(tokenize.TokenError, SyntaxError):
            comments = comment_tokens(line.strip() + "\n")
            code = line.strip()
            for comment in comments:
                code = code.replace(comment, "").strip()
            if not code or code not in inserted:
                found += comments
    return found


def _describe(text: str) -> str:
    return f"\n--- program ---\n{text!r}\n---------------"


def assert_range_inside(source: SourceText, rng: Range, what: str, text: str) -> None:
    """`rng` is well formed and lies inside the document."""
    for pos in (rng.start, rng.end):
        assert 0 <= pos.line < source.line_count, f"{what}: line {pos} outside{_describe(text)}"
        width = len(source.line(pos.line))
        assert 0 <= pos.character <= width, (
            f"{what}: column {pos} outside a line of {width}{_describe(text)}"
        )
    assert rng.start <= rng.end, f"{what}: inverted range {rng}{_describe(text)}"


def assert_result_well_formed(text: str, result: CheckResult) -> None:
    """No rule crashed, and every range a client would see lies inside the file."""
    assert result.rule_errors == (), f"rule errors {result.rule_errors}{_describe(text)}"
    source = SourceText(text)
    if result.parse_error is not None:
        assert_range_inside(source, result.parse_error.range, "parse error", text)
    for finding in result.findings:
        assert_range_inside(source, finding.range, f"{finding.code} range", text)
        for related in finding.related:
            assert_range_inside(source, related.range, f"{finding.code} related", text)
        for fix in finding.fixes:
            # A fix whose edits turn out empty is never applied (engine.applicable_fixes).
            for edit in fix.edits:
                assert_range_inside(source, edit.range, f"{finding.code} fix edit", text)


def check_engine(text: str) -> Tally:
    """Run the whole engine on `text`: check, fix-all (safe and unsafe), fix idempotence."""
    result = check_source(text)
    assert_result_well_formed(text, result)
    for unsafe in (False, True):
        fixed = fix_source(text, unsafe=unsafe)
        assert_result_well_formed(fixed.text, fixed.remaining)
        if fixed.applied:
            assert parses(fixed.text), f"fix-all produced unparsable code{_describe(text)}"
            assert fixed.text.startswith("\ufeff") == text.startswith("\ufeff")
        again = fix_source(fixed.text, unsafe=unsafe)
        assert again.text == fixed.text, (
            f"fix-all (unsafe={unsafe}) is not idempotent:\nonce:\n{fixed.text}\ntwice:\n"
            f"{again.text}{_describe(text)}"
        )
    fixes = sum(len(f.fixes) for f in result.findings)
    return Tally(programs=1, findings=len(result.findings), fixes=fixes)


def _spans(source: SourceText, fix: Fix) -> list[tuple[int, int, str]]:
    return sorted(
        (source.offset(e.range.start), source.offset(e.range.end), e.new_text) for e in fix.edits
    )


def _old_offset(spans: list[tuple[int, int, str]], new: int) -> tuple[int, int]:
    """Map an offset in the fixed text back to the original: an exact point or an edit's span."""
    shift = 0
    for start, end, new_text in spans:
        new_start = start + shift
        new_end = new_start + len(new_text)
        if new < new_start:
            break
        if new < new_end or (new == new_start and start == end):
            return (start, end)
        shift += len(new_text) - (end - start)
    return (new - shift, new - shift)


def _indent_chars(text: str) -> set[str]:
    chars: set[str] = set()
    for line in SourceText(text).lines():
        body = line.lstrip(" \t")
        if body and not body.startswith("#"):
            chars.update(line[: len(line) - len(body)])
    return chars


def check_fix(text: str, finding: Finding, fix: Fix, before: CheckResult) -> Tally:
    """One fix keeps every promise: it parses, it removes its diagnostic and adds none, and
    it leaves the rest of the file (line endings, indentation style, comments, BOM) alone.

    Returns how many masked diagnostics the fix revealed."""
    source = SourceText(text)
    spans = _spans(source, fix)
    where = f"{finding.code} fix {fix.title!r} at {finding.range.start}"
    fixed = apply_edits(source, fix.edits)

    # Outside the edited spans the text is byte-for-byte the original.
    cursor, shift = 0, 0
    for start, end, new_text in spans:
        assert fixed[cursor + shift : start + shift] == text[cursor:start], where
        assert fixed[start + shift : start + shift + len(new_text)] == new_text, where
        shift += len(new_text) - (end - start)
        cursor = end
    assert fixed[cursor + shift :] == text[cursor:], where

    # Inside them the new text follows the file's own conventions.
    # (A fix may only write line breaks the file already uses: no bare LF in a CRLF file, no
    # CR in an LF file; a file that mixes them may get any of its own.)
    breaks = set(_LINE_BREAK.findall(text)) or {"\n"}
    for _start, _end, new_text in spans:
        foreign = set(_LINE_BREAK.findall(new_text)) - breaks
        assert not foreign, f"{where}: line breaks {foreign} the file does not use"
    assert _indent_chars(fixed) <= (_indent_chars(text) or {" "}), (
        f"{where}: indentation style changed{_describe(text)}\n{fixed}"
    )
    assert parses(fixed), f"{where}: result does not parse{_describe(text)}\n{fixed}"
    assert fixed.startswith("\ufeff") == text.startswith("\ufeff"), f"{where}: BOM changed"
    # A comment may only go with a statement the fix deletes entirely (as ruff does), not
    # with one it moves.
    inserted = "".join(new_text for _start, _end, new_text in spans)
    deleted = "".join(text[start:end] for start, end, new_text in spans if not new_text)
    lost = comment_tokens(text) - comment_tokens(fixed) - _line_comments(deleted, inserted)
    assert not lost, f"{where}: comments lost {dict(lost)}{_describe(text)}\n{fixed}"

    # Its diagnostic is gone and nothing new appeared, except what the fixed diagnostic
    # masked (Python, too, reports one error at a time):
    # * another rule's finding about the same statements: fixing `float(loss)` under no_grad
    #   reveals the no_grad; removing a no_grad reveals the hidden state it kept untracked;
    # * the same rule about the same backward() call, with a second cause: GG101 names the
    #   innermost of two nested no-grad regions (see test_nested_no_grad_fix_removes_the_error).
    after = check_source(fixed)
    assert_result_well_formed(fixed, after)
    fixed_source = SourceText(fixed)
    related = _lines(source, [r.range for r in finding.related])
    footprint = related | _lines(source, [finding.range])
    edited = {source.position_at(offset).line for span in spans for offset in span[:2]}
    footprint |= edited | _governed_lines(text, edited)
    old = [(f.code, source.offset(f.range.start)) for f in before.findings if f is not finding]
    tally = Tally()
    for later in after.findings:
        lo, hi = _old_offset(spans, fixed_source.offset(later.range.start))
        match = next((o for o in old if o[0] == later.code and lo <= o[1] <= hi), None)
        if match is not None:
            old.remove(match)
            continue

        def old_lines(ranges: list[Range]) -> set[int]:
            lines: set[int] = set()
            for r in ranges:
                lo, hi = _old_offset(spans, fixed_source.offset(r.start))
                lines.update(range(source.position_at(lo).line, source.position_at(hi).line + 1))
            return lines

        if finding.code in REENABLES_GRAD:
            # Giving a value its history back changes what every rule may prove about any
            # value computed there, wherever it is used later (`loss.grad` of a now non-leaf
            # loss; a module bound in the removed block is now known file-wide).
            tally.unmasked += 1
            continue
        if finding.code in REMOVES_UNFREEZING:
            # Removing `x.requires_grad_(True)` removes text that might have unfrozen any
            # parameter (`parameters.may_unfreeze`, a file-wide check): freezes elsewhere in
            # the file become certain, and what every rule proves from them is reported
            # (GG104 on a model frozen by a loop, the outputs of a frozen model...).
            tally.unmasked += 1
            continue
        if later.code == finding.code:
            assert old_lines([r.range for r in later.related]) & related, (
                f"{where}: {later.code} at {later.range.start} is new: {later.message}"
                f"{_describe(text)}\n{fixed}"
            )
            tally.second_causes += 1
        else:
            assert old_lines([later.range, *(r.range for r in later.related)]) & footprint, (
                f"{where}: {later.code} at {later.range.start} is new: {later.message}"
                f"{_describe(text)}\n{fixed}"
            )
            tally.unmasked += 1
    return tally


def _governed_lines(text: str, edited: set[int]) -> set[int]:
    """Lines of every block whose header (decorators, `with ...:`, `for ...:`) was edited:
    removing a `@torch.no_grad()` or a `with torch.no_grad():` changes its whole body."""
    tree = ast.parse(text.removeprefix("\ufeff"))
    lines: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(node, ast.stmt) or not body:
            continue
        decorators = getattr(node, "decorator_list", [])
        first = min([node.lineno, *(d.lineno for d in decorators)]) - 1
        header = set(range(first, body[0].lineno - 1))
        if header & edited:
            lines.update(range(first, (node.end_lineno or node.lineno)))
    return lines


# Rules whose fix gives a value its autograd history back (removes a no-grad region, a
# detach, an .item(), a re-wrapping `torch.tensor([...])`): see check_fix.
REENABLES_GRAD = frozenset({"GG101", "GG102", "GG103", "GG105"})
# Fixes that delete a `requires_grad_(True)` / `requires_grad = True`: such text anywhere in
# the file suspends every certain freeze.
REMOVES_UNFREEZING = frozenset({"GG109"})


def _lines(source: SourceText, ranges: list[Range]) -> set[int]:
    return {line for r in ranges for line in range(r.start.line, r.end.line + 1)}


def check_all_fixes(text: str) -> Tally:
    """`check_fix` for every fix of every finding in `text`."""
    before = check_source(text)
    assert_result_well_formed(text, before)
    tally = Tally(programs=1, findings=len(before.findings))
    for finding in before.findings:
        for fix in finding.fixes:
            if not fix.edits:
                continue
            tally.add(check_fix(text, finding, fix, before))
            tally.fixes += 1
    return tally


def check_everything(text: str) -> Tally:
    """The whole-engine checks and the per-fix invariants."""
    check_engine(text)
    return check_all_fixes(text)
