"""Why fix-all applied nothing, in one sentence the user can act on.

A fix-all that changes nothing must not look like a fix-all that failed or was never run:
the usual reason is that every fix left is marked unsafe (and `unsafeFixes` is off), which
the user can change, or apply fix by fix from the quick fixes.
"""

from __future__ import annotations

from collections.abc import Iterable

from gradguard.core.findings import Finding, Safety

_MAX_CODES = 5


def nothing_to_fix(
    findings: Iterable[Finding], *, unsafe: bool, codes: frozenset[str] | None
) -> str:
    """The reason a fix-all over `findings` (only `codes`, when given) applies nothing."""
    relevant = [f for f in findings if codes is None or f.code in codes]
    scope = "no GradGuard problem" if codes is None else f"no {_listed(sorted(codes))} problem"
    if not relevant:
        return f"GradGuard: nothing to fix — {scope} in this file."
    fixed = [f for f in relevant if f.fix is not None and f.fix.edits]
    unsafe_only = [f for f in fixed if f.fix is not None and f.fix.safety is Safety.UNSAFE]
    if unsafe_only and not unsafe:
        count = len(unsafe_only)
        have = "finding has" if count == 1 else "findings have"
        rules = _listed(sorted({f.code for f in unsafe_only}))
        return (
            f"GradGuard: nothing to fix automatically — {count} {have} only unsafe fixes "
            f"({rules}). Apply them one at a time from the quick fixes, or set "
            '"gradguard.unsafeFixes" (unsafe-fixes = true in pyproject.toml) to include them.'
        )
    if not fixed:
        count = len(relevant)
        what = "the finding has no" if count == 1 else f"none of the {count} findings has an"
        return f"GradGuard: nothing to fix automatically — {what} automatic fix."
    return (
        "GradGuard: nothing to fix automatically — the remaining fixes would not apply "
        "cleanly to the current text; apply them one at a time from the quick fixes."
    )


def _listed(codes: list[str]) -> str:
    """`GG201, GG302` (the first few codes, then how many more)."""
    shown = ", ".join(codes[:_MAX_CODES])
    more = len(codes) - _MAX_CODES
    return f"{shown} and {more} more" if more > 0 else shown
