"""Time the start-up of `gradguard check` against `python -c pass` (and ruff on a large file).

Run from the repository root with the project venv:

    .venv/bin/python benchmarks/bench_startup.py             # 15 rounds, writes the report
    .venv/bin/python benchmarks/bench_startup.py --runs 9 --no-write

Every round runs each command once, in a fixed order, so a burst of load on a shared machine
hits all of them alike; a cell is the median (and minimum) over the rounds, and a ratio is the
median of the per-round ratios to `python -c pass` of the same round. The files are copied to
a fresh temporary directory outside the repository, so no `pyproject.toml` is found above
them. One unmeasured round comes first (it writes the bytecode and fills the cache).

Cases (the issue's targets: an empty file in <= 2x `python -c pass`; whole process on
transformers' modeling_utils.py in <= 2x ruff):

* an empty file; a file that is just `import torch`; a small real training loop
  (`examples/clean_training_loop.py`), each with `--no-cache` and with the cache (the default);
* transformers' `modeling_utils.py` (5.3k lines) with `--no-cache`, against
  `ruff check --isolated --select ALL --no-cache`, when the benchmark corpus has been fetched
  into `benchmarks/.cache/corpus` (`bench_check.py` does that) or `--large FILE` is given.

`--baseline REV` also times the gradguard commands of another commit (its `server/` tree,
exported with `git archive` into a temporary directory), in the same rounds: before/after
numbers measured under the same load. Both trees run through the same console script, with
`PYTHONPATH` pointing at the tree.

The report goes to `benchmarks/results/startup.md` and is printed.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from machine import cpu_model, load_average, short_commit

if TYPE_CHECKING:
    from collections.abc import Sequence

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "startup.md"
TRAINING = ROOT / "examples" / "clean_training_loop.py"
LARGE = HERE / ".cache" / "corpus" / "transformers-5.23.0" / "transformers" / "modeling_utils.py"
BASELINE = "python -c pass"
FLOORS = (
    ("python -c 'import argparse, pathlib' (stdlib floor)", "argparse, pathlib"),
    ("python -c 'import argparse, pathlib, dataclasses'", "argparse, pathlib, dataclasses"),
)
# Runs `gradguard check ARGS` in process with dataclass creation timed (a diagnostic only:
# on Python 3.11 each generated method of a dataclass is compiled on its own at import).
DATACLASS_PROBE = """
import dataclasses, sys, time
spent = [0, 0.0]
process = dataclasses._process_class
def timed(*args, **kwargs):
    start = time.perf_counter()
    try:
        return process(*args, **kwargs)
    finally:
        spent[0] += 1
        spent[1] += time.perf_counter() - start
dataclasses._process_class = timed
from gradguard.cli import main
main(sys.argv[1:])
sys.stderr.write(f"\\nDATACLASSES {spent[0]} {spent[1]}\\n")
"""
IMPORTTIME = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)$", re.M)


@dataclass(frozen=True)
class Case:
    """One command to time: a label for the table, its argument vector and, for gradguard,
    the `server/` tree it runs from."""

    label: str
    argv: tuple[str, ...]
    tree: Path | None = None


@dataclass
class Timing:
    """Wall and CPU (user + sys of the child) times of one case, one value per round (s)."""

    wall: list[float]
    cpu: list[float]


def gradguard_command() -> tuple[str, ...]:
    """The installed `gradguard` script beside this interpreter, else `python -m gradguard`."""
    script = Path(sys.executable).parent / "gradguard"
    return (str(script),) if script.exists() else (sys.executable, "-m", "gradguard")


def ruff_command() -> str | None:
    """A ruff executable: beside this interpreter, else on PATH, else none."""
    beside = Path(sys.executable).parent / "ruff"
    return str(beside) if beside.exists() else shutil.which("ruff")


def export_tree(rev: str, into: Path) -> Path:
    """The `server/` tree of commit `rev`, extracted under `into`."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, "server"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "server"


def with_baseline(cases: list[Case], baseline: Path, rev: str) -> list[Case]:
    """Each gradguard case twice: on `baseline` (labelled with `rev`), then on this tree."""
    out: list[Case] = []
    for case in cases:
        if case.tree is not None:
            out.append(Case(f"{case.label} [{rev}]", case.argv, baseline))
        out.append(case)
    return out


def build_cases(work: Path, large: Path | None) -> list[Case]:
    """The commands to time, on copies of the files in `work`."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "empty.py").write_text("")
    (work / "import_torch.py").write_text("import torch\n")
    shutil.copyfile(TRAINING, work / "training.py")
    gg = (*gradguard_command(), "check")
    tree = ROOT / "server"
    cases = [Case(BASELINE, (sys.executable, "-c", "pass"))]
    # What any CLI built on argparse, pathlib and dataclasses pays before its own code runs.
    for label, modules in FLOORS:
        cases.append(Case(label, (sys.executable, "-c", f"import {modules}")))
    for name, what in (
        ("empty.py", "empty file"),
        ("import_torch.py", "`import torch` only"),
        ("training.py", "training loop (72 lines)"),
    ):
        cases.append(Case(f"{what}, --no-cache", (*gg, "--no-cache", name), tree))
        cases.append(Case(f"{what}, cache (default; hit)", (*gg, name), tree))
    ruff = ruff_command()
    if large is not None:
        shutil.copyfile(large, work / "modeling_utils.py")
        lines = len(large.read_text(encoding="utf-8").splitlines())
        label = f"modeling_utils.py ({lines} lines)"
        cases.append(Case(f"{label}, --no-cache", (*gg, "--no-cache", "modeling_utils.py"), tree))
        if ruff is not None:
            ruff_argv = (ruff, "check", "--isolated", "--select", "ALL", "--no-cache")
            cases.append(Case(f"ruff on {label}", (*ruff_argv, "modeling_utils.py")))
    return cases


def run_once(case: Case, work: Path, env: dict[str, str]) -> tuple[float, float]:
    """Run a case once in `work`; its wall time and its CPU time (user + sys), in seconds."""
    if case.tree is not None:
        env = {**env, "PYTHONPATH": str(case.tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        case.argv, cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(cases: list[Case], work: Path, runs: int) -> dict[str, Timing]:
    """`runs` rounds of every case in turn, after one unmeasured round."""
    # With PYTHONDONTWRITEBYTECODE every run would recompile gradguard's sources.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.pop("GRADGUARD_NO_CACHE", None)
    env.pop("GRADGUARD_CACHE_DIR", None)
    env.pop("PYTHONPATH", None)
    for case in cases:
        run_once(case, work, env)
    timings = {case.label: Timing([], []) for case in cases}
    for _ in range(runs):
        for case in cases:
            wall, cpu = run_once(case, work, env)
            timings[case.label].wall.append(wall)
            timings[case.label].cpu.append(cpu)
    return timings


def import_breakdown(case: Case, work: Path, runs: int) -> str:
    """`python -X importtime` of a case: median self time per module over `runs` runs, as
    totals (gradguard's modules, the others) and the slowest modules."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")
    }
    env["PYTHONPATH"] = str(case.tree or ROOT / "server")
    command = case.argv[1:] if case.argv[0] == sys.executable else case.argv  # -m gradguard
    argv = (sys.executable, "-X", "importtime", *command)
    selfs: dict[str, list[int]] = {}
    for _ in range(runs):
        stderr = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True).stderr
        for match in IMPORTTIME.finditer(stderr):
            selfs.setdefault(match.group(4), []).append(int(match.group(1)))
    median = {name: statistics.median(times) for name, times in selfs.items()}
    count, spent = dataclass_cost(case, work, env, runs)
    ours = sum(t for name, t in median.items() if name.split(".")[0] == "gradguard")
    total = sum(median.values())
    top = sorted(median.items(), key=lambda item: -item[1])[:12]
    listed = ", ".join(f"{name} {t / 1000:.1f}" for name, t in top)
    return (
        f"* {case.label}: {len(median)} modules, {total / 1000:.1f} ms of import (self times"
        f" summed), {ours / 1000:.1f} ms of it in gradguard's own modules, of which"
        f" {spent * 1000:.1f} ms creating {count} dataclasses. Slowest (ms): {listed}."
    )


def dataclass_cost(case: Case, work: Path, env: dict[str, str], runs: int) -> tuple[int, float]:
    """How many dataclasses a case creates and the median time spent creating them (s)."""
    args = case.argv[case.argv.index("check") :]
    counts, spent = [], []
    for _ in range(runs):
        stderr = subprocess.run(
            [sys.executable, "-c", DATACLASS_PROBE, *args],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
        ).stderr
        found = re.search(r"^DATACLASSES (\d+) (\S+)$", stderr, re.M)
        if found:
            counts.append(int(found.group(1)))
            spent.append(float(found.group(2)))
    return (max(counts), statistics.median(spent)) if counts else (0, 0.0)


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f} ({min(values) * 1000:.1f})"


def _ratio(values: list[float], reference: list[float]) -> str:
    return f"{statistics.median(a / b for a, b in zip(values, reference, strict=True)):.2f}x"


def report(
    timings: dict[str, Timing], runs: int, rev: str | None = None, imports: Sequence[str] = ()
) -> str:
    """The markdown report: the machine, then one row per case."""
    base = timings[BASELINE]
    before = {
        label.removesuffix(f" [{rev}]"): t
        for label, t in timings.items()
        if rev and label.endswith(f" [{rev}]")
    }
    ruff = next((t for label, t in timings.items() if label.startswith("ruff on ")), None)
    load = " ".join(load_average()) or "?"
    lines = [
        "# `gradguard check` start-up",
        "",
        f"Produced by `benchmarks/bench_startup.py` (median of {runs} alternating rounds, "
        "min in parentheses; ratios are medians of per-round ratios).",
        "",
        f"* date: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"* commit: {short_commit(ROOT) or '?'}",
        f"* machine: {cpu_model()}, {os.cpu_count()} cores (nproc), load average at the end {load}",
        f"* python: {platform.python_version()} ({sys.executable})",
        "",
        "Targets (issue 13): an empty file in <= 2x `python -c pass`; the whole process on"
        " transformers' modeling_utils.py in <= 2x ruff. The floor rows are what merely"
        " importing argparse and pathlib (and dataclasses, which imports inspect) costs here."
        " `[REV]` rows run another commit's tree in the same rounds.",
        "",
        "| command | wall ms | CPU ms | wall / `python -c pass` | wall / ruff "
        f"| wall / same at {rev or '-'} |",
        "|---|---|---|---|---|---|",
    ]
    for label, timing in timings.items():
        vs_ruff = _ratio(timing.wall, ruff.wall) if ruff and "modeling_utils" in label else ""
        vs_before = _ratio(timing.wall, before[label].wall) if label in before else ""
        lines.append(
            f"| {label} | {_ms(timing.wall)} | {_ms(timing.cpu)} "
            f"| {_ratio(timing.wall, base.wall)} | {vs_ruff} | {vs_before} |"
        )
    if imports:
        lines += [
            "",
            "Where the time goes: `python -X importtime` (median of 7 runs, this tree):",
            "",
            *imports,
        ]
    return "\n".join(lines) + "\n"


def main() -> int:
    """Parse the options, time every case, print (and write) the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed rounds (default 15)")
    parser.add_argument("--large", type=Path, help="a large file to time against ruff")
    parser.add_argument("--baseline", metavar="REV", help="also time this commit's gradguard")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--output", type=Path, default=RESULTS, help="where to write")
    args = parser.parse_args()
    large = args.large or (LARGE if LARGE.exists() else None)
    with tempfile.TemporaryDirectory(prefix="gg-startup-") as tmp:
        work = Path(tmp)
        cases = build_cases(work / "files", large)
        if args.baseline:
            baseline = export_tree(args.baseline, work / "baseline")
            cases = with_baseline(cases, baseline, args.baseline)
        timings = measure(cases, work / "files", args.runs)
        imports = [
            import_breakdown(case, work / "files", 7)
            for case in cases
            if case.tree == ROOT / "server" and "--no-cache" in case.argv
        ]
        text = report(timings, args.runs, args.baseline, imports)
    sys.stdout.write(text)
    if not args.no_write:
        args.output.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
