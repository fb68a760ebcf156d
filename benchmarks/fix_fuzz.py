"""The long fix fuzz (issue 11): layout mutants of every rule's INVALID examples and of every
`tests/corpus/**/*.py` file, every offered fix applied alone and all together.

    .venv/bin/python benchmarks/fix_fuzz.py                       # 40 mutants per program
    .venv/bin/python benchmarks/fix_fuzz.py --per-program 5 --seed 7

Mutators (`tests/fuzz/mutants.py`): form feeds before statements, spaces then a tab in an
indentation, `;` chains, backslash continuations, CR / CRLF / mixed line breaks, a comment
in every gap between lines, parenthesised `with (...)` headers; one to three per mutant,
kept only when the mutant still parses. Checks (`tests/invariants/checks.py`): each fix
parses, removes its diagnostic, adds no new one, changes nothing outside its edits and loses
no comment; fix-all is idempotent. Also counted: fixes the engine's central check refused
(builder bugs it kept from users). Prints the counts and the time; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fuzz.mutants import FuzzTally, check_mutant, mutants, seed_programs  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Run the campaign and print its figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--per-program", type=int, default=40, help="mutants per program")
    parser.add_argument("--seed", type=int, default=20_260_611)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    programs = seed_programs(ROOT)
    tally = FuzzTally()
    started = time.perf_counter()
    for number, (name, text) in enumerate(programs, 1):
        for kind, mutant in mutants(text, rng, args.per_program):
            check_mutant(f"{kind}@{name}", mutant, tally)
        if number % 25 == 0:
            print(
                f"  {number}/{len(programs)} programs, {tally.mutants} mutants, "
                f"{tally.fixes} fixes, {time.perf_counter() - started:.0f} s",
                flush=True,
            )
    elapsed = time.perf_counter() - started
    for failure in tally.failures:
        print(failure, end="\n\n")
    print(f"programs:             {len(programs)}")
    print(f"mutants fuzzed:       {tally.mutants}")
    print(f"fixes checked:        {tally.fixes}")
    print(f"unparsable fixes:     {tally.unparsable}")
    print(f"comments lost:        {tally.comments_lost}")
    print(f"other fix invariants: {tally.other}")
    print(f"fix-all failures:     {tally.fix_all}")
    print(f"refused by the check: {sum(tally.refused.values())} {dict(tally.refused)}")
    print(f"time:                 {elapsed:.1f} s")
    return 0 if tally.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
