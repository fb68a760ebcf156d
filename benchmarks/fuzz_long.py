"""The long fuzz run: 10,000+ generated programs through the whole engine and every fix.

    .venv/bin/python benchmarks/fuzz_long.py                 # 10,000 torch programs + 2,000 more
    .venv/bin/python benchmarks/fuzz_long.py --torch 20000 --grammar 0 --seed 7

Same checks as the CI-sized run in tests/fuzz (no exception escapes, no rule crashes, every
range inside the file, fix-all idempotent and parsable, every fix keeps the fix invariants),
with many more examples. Exits 1 on the first failure, after Hypothesis shrinks it; prints
the counts and the time either way.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import hypothesmith
from fuzz.programs import torch_programs
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from invariants.checks import Tally, check_everything, parses


def _run(name: str, strategy: st.SearchStrategy[str], count: int, rng: int, tally: Tally) -> bool:
    """Check `count` programs from `strategy`; True when all passed."""
    if count <= 0:
        return True
    part = Tally()

    @seed(rng)
    @settings(
        max_examples=count,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def run(program: str) -> None:
        part.add(check_everything(program))

    started = time.perf_counter()
    ok = True
    try:
        run()
    except Exception:
        import traceback

        traceback.print_exc()
        ok = False
    elapsed = time.perf_counter() - started
    print(
        f"{name:>10}: {part.programs:6d} programs, {part.findings:6d} findings, "
        f"{part.fixes:6d} fixes checked ({part.unmasked} revealed a masked diagnostic, "
        f"{part.second_causes} a second cause), {elapsed:7.1f} s" + ("" if ok else "  FAILED"),
        flush=True,
    )
    tally.add(part)
    return ok


def _torch_only(program: str) -> str:
    assert parses(program)
    return program


def main(argv: list[str] | None = None) -> int:
    """Run the long fuzz campaign and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch", type=int, default=10_000, help="torch-flavoured programs")
    parser.add_argument("--grammar", type=int, default=1_500, help="hypothesmith grammar programs")
    parser.add_argument("--nodes", type=int, default=500, help="hypothesmith libcst-node programs")
    parser.add_argument("--seed", type=int, default=20_260_521)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", SyntaxWarning)  # hypothesmith compiles its programs

    prefixed: Callable[[str], str] = lambda p: "import torch\n" + p  # noqa: E731
    campaigns = [
        ("torch", torch_programs().map(_torch_only), args.torch),
        ("grammar", hypothesmith.from_grammar().map(prefixed), args.grammar),
        ("nodes", hypothesmith.from_node().map(prefixed), args.nodes),
    ]
    tally = Tally()
    started = time.perf_counter()
    ok = all(
        [_run(name, strat, n, args.seed + i, tally) for i, (name, strat, n) in enumerate(campaigns)]
    )
    elapsed = time.perf_counter() - started
    print(
        f"{'total':>10}: {tally.programs:6d} programs, {tally.findings:6d} findings, "
        f"{tally.fixes:6d} fixes checked, {elapsed:7.1f} s, {'ok' if ok else 'FAILED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
