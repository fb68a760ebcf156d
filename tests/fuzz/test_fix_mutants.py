"""A bounded, deterministic sample of the fix fuzz (`benchmarks/fix_fuzz.py` is the long run).

Layout mutants (form feeds, spaces-then-tab indentation, `;` chains, backslash
continuations, mixed line breaks, comments in every gap, parenthesised `with`) of the INVALID
examples of the rules whose fixes restructure code, and of every fourth other example: every
fix the engine offers must parse, keep the comments, remove its diagnostic and add none, and
fix-all must stay idempotent. No fix may be refused by the engine's central check either: a
refusal is a builder bug the check hid from users.
"""

from __future__ import annotations

import random
from pathlib import Path

from fuzz.mutants import MUTATORS, FuzzTally, check_mutant, mutants, seed_programs

ROOT = Path(__file__).resolve().parents[2]
# Rules whose fixes move, wrap or re-indent statements: every example of these.
RESTRUCTURING = ("GG101", "GG102", "GG107", "GG204", "GG301", "GG302")


def _sample() -> list[tuple[str, str]]:
    examples = [(n, t) for n, t in seed_programs(ROOT) if "-invalid-" in n]
    return [
        (name, text)
        for index, (name, text) in enumerate(examples)
        if name.startswith(RESTRUCTURING) or index % 4 == 0
    ]


def test_fixes_of_layout_mutants_keep_every_invariant() -> None:
    rng = random.Random(20_260_611)
    tally = FuzzTally()
    kinds: set[str] = set()
    for name, text in _sample():
        for kind, mutant in mutants(text, rng, per_program=len(MUTATORS)):
            kinds.update(kind.split("+"))
            check_mutant(f"{kind}@{name}", mutant, tally)
    assert kinds == set(MUTATORS), f"some mutators never applied: {set(MUTATORS) - kinds}"
    assert tally.mutants >= 150 and tally.fixes >= 150, tally
    assert tally.ok, "\n\n".join(tally.failures)
    assert not tally.refused, tally.refused
