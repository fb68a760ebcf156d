"""Applying text edits to a document."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gradguard.core.findings import Fix, TextEdit
from gradguard.core.text import SourceText


class OverlappingEdits(ValueError):
    """Two edits touch the same text; the caller should apply them in separate rounds."""


def apply_edits(source: SourceText, edits: Iterable[TextEdit]) -> str:
    """Apply non-overlapping edits (positions refer to the original text)."""
    spans = sorted(
        ((source.offset(e.range.start), source.offset(e.range.end), e.new_text) for e in edits),
        key=lambda s: (s[0], s[1]),
    )
    out: list[str] = []
    cursor = 0
    for start, end, new_text in spans:
        if start < cursor:
            raise OverlappingEdits(f"edit at offset {start} overlaps an earlier edit")
        out.append(source.text[cursor:start])
        out.append(new_text)
        cursor = end
    out.append(source.text[cursor:])
    return "".join(out)


def compatible_fixes(source: SourceText, fixes: Sequence[Fix]) -> list[Fix]:
    """The largest prefix-greedy subset of `fixes` whose edits do not overlap one another."""
    taken: list[tuple[int, int]] = []
    chosen: list[Fix] = []
    for fix in fixes:
        spans = [(source.offset(e.range.start), source.offset(e.range.end)) for e in fix.edits]
        if any(_overlaps(a, b) for a in spans for b in taken):
            continue
        taken.extend(spans)
        chosen.append(fix)
    return chosen


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    # Two insertions at the same point conflict too: their order would be arbitrary.
    if a[0] == a[1] == b[0] == b[1]:
        return True
    return a[0] < b[1] and b[0] < a[1]
