"""Time `gradguard check` on a whole tree of real code: cold (one process, N processes),
warm (cache), against ruff and `ast.parse`, plus the start-up cost on an empty file.

Run from the repository root with the project venv:

    .venv/bin/python benchmarks/bench_tree.py                       # torch/nn, optim, utils
    .venv/bin/python benchmarks/bench_tree.py --runs 1 --parts nn   # quicker

The tree is a copy of parts of the installed torch package (library code, not training
scripts: few findings, much analysis) in a temporary directory outside this repository, so
no tool picks up this repository's pyproject.toml or .gitignore. ruff is the one installed
next to the interpreter (`ruff check --select ALL`); torch-preflight is timed when its
`--preflight` command line is given. Results are printed and written to
`benchmarks/results/tree.md`. These are measurements, never assertions.
"""

from __future__ import annotations

import argparse
import ast
import os
import platform
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from machine import cpu_model, load_average, short_commit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Timing:
    """Wall and CPU (user + sys, whole process tree) times of repeated runs, in ms."""

    wall: tuple[float, ...]
    cpu: tuple[float, ...]

    def cell(self) -> str:
        """`median (min)` wall ms, and median CPU ms."""
        return (
            f"{statistics.median(self.wall):,.0f} ({min(self.wall):,.0f}) "
            f"| {statistics.median(self.cpu):,.0f}"
        )

    @property
    def median(self) -> float:
        """Median wall time."""
        return statistics.median(self.wall)


def environment() -> dict[str, str]:
    """The environment of timed processes: bytecode caching on, as users have it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.pop("GRADGUARD_CACHE_DIR", None)
    env.pop("GRADGUARD_NO_CACHE", None)
    return env


def time_process(
    command: Sequence[str], runs: int, cwd: Path, before: list[str] | None = None
) -> Timing:
    """Run `command` `runs` times (after one unmeasured run); `before` is removed first."""
    walls: list[float] = []
    cpus: list[float] = []
    for index in range(runs + 1):
        for path in before or []:
            shutil.rmtree(path, ignore_errors=True)
        start_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, capture_output=True, env=environment())
        wall = (time.perf_counter() - start) * 1000
        end_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 1, 2) or b"Traceback" in done.stderr:
            raise RuntimeError(f"{shlex.join(command)} failed:\n{done.stderr.decode()[-2000:]}")
        if index:
            walls.append(wall)
            cpus.append(
                (end_cpu.ru_utime + end_cpu.ru_stime - start_cpu.ru_utime - start_cpu.ru_stime)
                * 1000
            )
    return Timing(tuple(walls), tuple(cpus))


def parse_all(files: Sequence[Path], runs: int) -> Timing:
    """In-process read + `ast.parse` of every file: the floor of any AST-based checker."""
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        for file in files:
            ast.parse(file.read_bytes(), filename=str(file))
        walls.append((time.perf_counter() - start) * 1000)
        cpus.append((time.process_time() - start_cpu) * 1000)
    return Timing(tuple(walls), tuple(cpus))


def stage(parts: Sequence[str], into: Path) -> tuple[Path, list[Path]]:
    """Copy the chosen subpackages of the installed torch into `into`."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        raise SystemExit("torch is not installed in this interpreter")
    torch_dir = Path(spec.origin).parent
    tree = into / "torch"
    for part in parts:
        shutil.copytree(
            torch_dir / part, tree / part, ignore=shutil.ignore_patterns("__pycache__", "*.so")
        )
    return tree, sorted(tree.rglob("*.py"))


def machine() -> list[str]:
    """Date, cores, CPU, Python, commit."""
    cpu = cpu_model()
    commit = short_commit(ROOT)
    load = load_average()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return [
        f"* date: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"* machine: {usable} usable cores (`os.cpu_count()` = {os.cpu_count()}), {cpu}, "
        f"{platform.platform()}",
        f"* python: {platform.python_version()}",
        f"* gradguard: commit {commit or '?'}",
        f"* load average at the end (1/5/15 min): {' '.join(load) or '?'}",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--parts", nargs="+", default=["nn", "optim", "utils"])
    parser.add_argument("--runs", type=int, default=3, help="timed runs per command")
    parser.add_argument("--preflight", help="torch-preflight command line, e.g. /tmp/tp/bin/...")
    parser.add_argument("--output", type=Path, default=RESULTS / "tree.md")
    args = parser.parse_args(argv)
    python = sys.executable
    gradguard = [python, "-m", "gradguard", "check", "."]
    jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    rows: list[tuple[str, str, Timing]] = []
    with tempfile.TemporaryDirectory(prefix="gradguard-tree-") as tmp:
        work = Path(tmp)
        tree, files = stage(args.parts, work)
        lines = sum(f.read_bytes().count(b"\n") for f in files)
        print(f"{len(files)} files, {lines:,} lines", file=sys.stderr)
        (work / "empty.py").write_text("")
        cache = str(tree / ".gradguard_cache")
        ruff_cache = str(work / "ruff-cache")
        ruff = [str(BIN / "ruff"), "check", "--isolated", "--select", "ALL", "--exit-zero", "."]
        plan: list[tuple[str, str, list[str], list[str]]] = [
            ("start-up", "`python -c pass`", [python, "-c", "pass"], []),
            (
                "start-up",
                "`gradguard check empty.py`",
                [python, "-m", "gradguard", "check", str(work / "empty.py")],
                [],
            ),
            (
                "cold",
                "gradguard --no-cache --jobs 1",
                [*gradguard, "--no-cache", "--jobs", "1"],
                [],
            ),
            (
                "cold",
                f"gradguard --no-cache --jobs {jobs}",
                [*gradguard, "--no-cache", "--jobs", str(jobs)],
                [],
            ),
            (
                "cold",
                f"gradguard, empty cache, --jobs {jobs} (fills it)",
                [*gradguard, "--jobs", str(jobs)],
                [cache],
            ),
            (
                "warm",
                f"gradguard, full cache, --jobs {jobs}",
                [*gradguard, "--jobs", str(jobs)],
                [],
            ),
            ("cold", "ruff --select ALL --no-cache", [*ruff, "--no-cache"], []),
            ("warm", "ruff --select ALL (cache)", [*ruff, "--cache-dir", ruff_cache], []),
        ]
        if args.preflight:
            plan.append(("cold", "torch-preflight", [*shlex.split(args.preflight), "."], []))
        for kind, name, command, before in plan:
            print(f"  {name}", file=sys.stderr)
            cwd = work if kind == "start-up" else tree
            rows.append((kind, name, time_process(command, args.runs, cwd, before)))
        rows.insert(2, ("floor", "read + ast.parse, in process", parse_all(files, args.runs)))
    base = {name: t for _, name, t in rows}
    one = base["gradguard --no-cache --jobs 1"].median
    out = ["# `gradguard check` on a tree", "", *machine()]
    out += [
        f"* tree: torch {', '.join(args.parts)} from the installed torch "
        f"({len(files)} files, {lines:,} lines), copied outside the repository",
        f"* {args.runs} timed runs after one unmeasured run; wall `median (min)` ms and "
        "median CPU ms (user + sys of the whole process tree)",
        "* command: `" + shlex.join(["python", "benchmarks/bench_tree.py", *sys.argv[1:]]) + "`",
        "",
        "| kind | command | wall ms | CPU ms | x gradguard cold --jobs 1 |",
        "|---|---|---:|---:|---:|",
    ]
    for kind, name, timing in rows:
        out.append(f"| {kind} | {name} | {timing.cell()} | {timing.median / one:.3f} |")
    pass_ms = base["`python -c pass`"].median
    empty_ms = base["`gradguard check empty.py`"].median
    out += ["", f"* start-up: empty file / `python -c pass` = {empty_ms / pass_ms:.1f}x"]
    ruff_cold = base["ruff --select ALL --no-cache"].median
    for name in (f"gradguard --no-cache --jobs {jobs}", f"gradguard, full cache, --jobs {jobs}"):
        out.append(f"* {name} / ruff cold = {base[name].median / ruff_cold:.1f}x")
    out.append(
        f"* gradguard cold --jobs 1 / ast.parse floor = "
        f"{one / base['read + ast.parse, in process'].median:.1f}x"
    )
    report = "\n".join(out) + "\n"
    print(report)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
