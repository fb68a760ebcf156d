"""The central check every fix passes before any front end offers it.

Fix builders work on many layouts (form feeds, mixed indentation, `;` chains, comments in
odd places); a builder bug on one of them must never reach a user. The engine wraps each
fix of each finding so that its edits are checked when they are first built: the edited
text must parse and must keep every comment, except the comments of lines the fix deletes
outright (a deleted statement takes its own comment along, as in ruff); and it must compile
when the original does (`f(x=1, x=2)` parses but does not compile). A fix that fails
has no edits: the finding is still reported, without the fix, and every front end (quick
fixes, fix-all, `--fix`, the CLI's fixable count) skips fixes without edits.

The check is local so that it stays cheap on large files when the language server builds
every fix of every diagnostic: outside the edited ranges the text is unchanged, so only the
top-level statements that contain the edits are parsed and tokenized again, before and
after the edits. When those statements do not parse on their own (a layout the splitting
does not foresee), the whole file is checked instead.
"""

from __future__ import annotations

import ast
import bisect
import io
import itertools
import re
import tokenize
import warnings
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gradguard.core.findings import Fix, Position, TextEdit
from gradguard.core.text import SourceText

if TYPE_CHECKING:
    import logging


def _log() -> logging.Logger:
    """This module's logger: logging is imported when something is logged (start-up)."""
    import logging

    return logging.getLogger(__name__)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")

_PARSE_FAILURES = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)


class FixValidator:
    """Checks the fixes of one document (see the module docstring)."""

    def __init__(self, source: SourceText, tree: ast.Module) -> None:
        self._source = source
        # 0-based (first, last) line of each top-level statement, decorators included.
        self._spans: list[tuple[int, int]] = [
            (
                min([stmt.lineno, *(d.lineno for d in _decorators(stmt))]) - 1,
                (stmt.end_lineno or stmt.lineno) - 1,
            )
            for stmt in tree.body
        ]
        self._starts = [first for first, _ in self._spans]

    def guard(self, fixes: Sequence[Fix]) -> tuple[Fix, ...]:
        """The same fixes, each with edits that are checked when first built."""
        return tuple(self._guarded(fix) for fix in fixes)

    def _guarded(self, fix: Fix) -> Fix:
        def build() -> tuple[TextEdit, ...] | None:
            foreign = self._source.foreign_reads
            try:
                edits = fix.edits
            except Exception:  # a builder bug costs this fix, not the finding
                _log().exception("building the fix %r failed", fix.title)
                return None
            if self._source.foreign_reads != foreign:
                return None  # built from another project file's code: not an edit of this one
            if not edits:
                return None
            problem = self.problem(edits)
            if problem is not None:
                _log().info("fix %r not offered: %s", fix.title, problem)
                return None
            return edits

        return Fix(fix.title, fix.safety, build)

    def problem(self, edits: Sequence[TextEdit]) -> str | None:
        """Why applying `edits` would break the document, or None when it would not."""
        source = self._source
        spans = sorted(
            (source.offset(e.range.start), source.offset(e.range.end), e.new_text) for e in edits
        )
        for (_, end, _), (start, _, _) in itertools.pairwise(spans):
            if start < end:
                return "its edits overlap"
        first, last = self._region(
            source.position_at(spans[0][0]).line, source.position_at(spans[-1][1]).line
        )
        lo = source.offset(Position(first, 0))
        hi = (
            len(source.text)
            if last + 1 >= source.line_count
            else source.offset(Position(last + 1, 0))
        )
        if lo == 0 and source.has_bom:
            lo = 1  # ast positions and the parser skip the byte-order mark
        before = source.text[lo:hi]
        after = _apply(source.text, lo, hi, spans)
        if not (_parses(before) and _parses(after)):
            # The statements do not stand alone (or an edit joins them to the next line):
            # judge the whole document.
            lo, hi = int(source.has_bom), len(source.text)
            before = source.text[lo:hi]
            after = _apply(source.text, lo, hi, spans)
            if not _parses(after):
                return "the edited code does not parse"
        if _compiles(before) and not _compiles(after):
            # What parses may still not compile: `f(x=1, x=2)`, a `return` moved out of its
            # function, a `break` out of its loop.
            return "the edited code does not compile"
        old, new = _comments(before), _comments(after)
        if old is None:
            return None  # the original does not tokenize: nothing to compare against
        if new is None:
            return "the edited code does not tokenize"
        lost = old - new - _deleted_comments(source.text, spans)
        if lost:
            return f"it loses the comments {sorted(lost)}"
        return None

    def _region(self, first: int, last: int) -> tuple[int, int]:
        """Lines `first..last` grown to whole top-level statements (and to the start of any
        logical line continued by a backslash into the region)."""
        while True:
            grown_first, grown_last = first, last
            index = bisect.bisect_right(self._starts, last) - 1
            while index >= 0:
                start, end = self._spans[index]
                if end < first:
                    break
                grown_first, grown_last = min(grown_first, start), max(grown_last, end)
                index -= 1
            while grown_first > 0 and self._source.line(grown_first - 1).endswith("\\"):
                grown_first -= 1
            while grown_last + 1 < self._source.line_count and self._source.line(
                grown_last
            ).endswith("\\"):
                grown_last += 1  # the next line continues this one: an edit may split them
            if (grown_first, grown_last) == (first, last):
                return first, last
            first, last = grown_first, grown_last


def _decorators(stmt: ast.stmt) -> list[ast.expr]:
    decorators: list[ast.expr] = getattr(stmt, "decorator_list", [])
    return decorators


def _apply(text: str, lo: int, hi: int, spans: list[tuple[int, int, str]]) -> str:
    """`text[lo:hi]` with the edits applied (every span lies inside it)."""
    out: list[str] = []
    cursor = lo
    for start, end, new_text in spans:
        out.append(text[cursor:start])
        out.append(new_text)
        cursor = end
    out.append(text[cursor:hi])
    return "".join(out)


def _parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except _PARSE_FAILURES:
        return False
    return True


def _compiles(text: str) -> bool:
    """Whether `text` compiles (it is never run)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<fix>", "exec", dont_inherit=True)
    except _PARSE_FAILURES:
        return False
    return True


def _comments(text: str) -> Counter[str] | None:
    """The multiset of `#` comments in `text` (None when it does not tokenize)."""
    found: Counter[str] = Counter()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            if tok.type == tokenize.COMMENT:
                found[tok.string.rstrip()] += 1
    except (tokenize.TokenError, SyntaxError):
        return None
    return found


def _deleted_comments(text: str, spans: list[tuple[int, int, str]]) -> Counter[str]:
    """Comments a fix may drop: those on lines it deletes outright, unless their code is
    re-inserted elsewhere (a moved statement takes its comment along)."""
    inserted = "".join(new_text for _, _, new_text in spans)
    allowed: Counter[str] = Counter()
    for start, end, new_text in spans:
        if new_text:
            continue
        for line in _LINE_BREAK.split(text[start:end]):
            comments = _comments(line.strip() + "\n")
            if not comments:
                continue
            code = line.strip()
            for comment in comments:
                code = code.replace(comment, "").strip()
            if not code or code not in inserted:
                allowed += comments
    return allowed
