"""Time `gradguard check` against `ast.parse`, ruff, TorchFix and Fixit on real PyTorch files.

Run from the repository root with the project venv:

    .venv/bin/python benchmarks/bench_check.py            # full run (a few minutes)
    .venv/bin/python benchmarks/bench_check.py --quick    # one file per size, fewer runs

The corpus is a fixed list of files from pinned wheels on PyPI, downloaded with
`pip download --no-deps --only-binary=:all:` and extracted into `benchmarks/.cache/corpus`.
The peers (TorchFix, Fixit, ruff) live in their own venv, `benchmarks/.cache/peers-venv`, so
they never touch the project's environment. Results are printed and written to
`benchmarks/results/check.md`.
"""

from __future__ import annotations

import argparse
import ast
import functools
import gc
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
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from machine import cpu_model, load_average, short_commit

if TYPE_CHECKING:
    from gradguard.core.findings import Finding
    from gradguard.core.rule import Rule, RuleContext

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = HERE / ".cache"
WHEELS = CACHE / "wheels"
CORPUS = CACHE / "corpus"
PEERS_VENV = CACHE / "peers-venv"
RESULTS = HERE / "results"

# Exact versions, so every run measures the same bytes.
CORPUS_WHEELS: dict[str, str] = {
    "transformers": "5.23.0",
    "diffusers": "0.42.1",
    "accelerate": "1.15.0",
    "pytorch-lightning": "2.6.6",
}
PEER_PACKAGES: tuple[str, ...] = ("torchfix==0.7.0", "fixit==2.2.1", "ruff==0.17.5")


@dataclass(frozen=True)
class CorpusFile:
    """One benchmark file: its size class, the distribution it comes from and its wheel path."""

    size: str
    dist: str
    member: str

    @property
    def path(self) -> Path:
        """Where the file is extracted."""
        return CORPUS / f"{self.dist}-{CORPUS_WHEELS[self.dist]}" / self.member

    @property
    def label(self) -> str:
        """A short name for tables."""
        return f"{self.dist}: {self.member.split('/', 1)[-1]}"


# The first file of each size class is the one `--quick` uses.
FILES: tuple[CorpusFile, ...] = (
    CorpusFile("small", "accelerate", "accelerate/optimizer.py"),
    CorpusFile("small", "accelerate", "accelerate/local_sgd.py"),
    CorpusFile("small", "diffusers", "diffusers/schedulers/deprecated/scheduling_karras_ve.py"),
    CorpusFile("small", "pytorch-lightning", "pytorch_lightning/loops/optimization/automatic.py"),
    CorpusFile("medium", "transformers", "transformers/models/longformer/modeling_longformer.py"),
    CorpusFile("medium", "accelerate", "accelerate/utils/modeling.py"),
    CorpusFile("medium", "diffusers", "diffusers/models/controlnets/controlnet_xs.py"),
    CorpusFile("large", "transformers", "transformers/modeling_utils.py"),
    CorpusFile("large", "diffusers", "diffusers/models/attention_processor.py"),
    CorpusFile("large", "diffusers", "diffusers/loaders/lora_pipeline.py"),
)

# Targets from the issue.
PROCESS_TARGET_MS = 250.0
PROCESS_TARGET_MIN_LINES = 5000
RATIO_TARGET = 2.0


def wheel_name(dist: str) -> str:
    """The normalised distribution name used in wheel file names."""
    return dist.replace("-", "_")


def ensure_corpus(files: Sequence[CorpusFile]) -> None:
    """Download the pinned wheels (once) and extract the benchmark files from them."""
    WHEELS.mkdir(parents=True, exist_ok=True)
    for dist in sorted({f.dist for f in files}):
        version = CORPUS_WHEELS[dist]
        pattern = f"{wheel_name(dist)}-{version}-*.whl"
        if not list(WHEELS.glob(pattern)):
            print(f"downloading {dist}=={version}", file=sys.stderr)
            subprocess.run(
                [
                    *(sys.executable, "-m", "pip", "download", "-q", "--no-deps"),
                    *("--only-binary=:all:", "-d", str(WHEELS), f"{dist}=={version}"),
                ],
                check=True,
            )
        (wheel,) = WHEELS.glob(pattern)
        with zipfile.ZipFile(wheel) as archive:
            for f in files:
                if f.dist == dist and not f.path.exists():
                    f.path.parent.mkdir(parents=True, exist_ok=True)
                    f.path.write_bytes(archive.read(f.member))


def ensure_peers() -> None:
    """Create the peers venv (TorchFix, Fixit, ruff) once, apart from the project venv."""
    if (PEERS_VENV / "bin" / "fixit").exists() and (PEERS_VENV / "bin" / "torchfix").exists():
        return
    print("creating peers venv (torchfix, fixit, ruff)", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(PEERS_VENV)], check=True)
    pip = [str(PEERS_VENV / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, *PEER_PACKAGES], check=True)


@dataclass
class Timing:
    """Repeated measurements of one thing, in milliseconds."""

    samples: list[float] = field(default_factory=list)
    # CPU time (user + sys) of the same runs: far less disturbed by other load on the machine.
    cpu: list[float] = field(default_factory=list)
    error: str | None = None

    def add(self, wall_s: float, cpu_s: float) -> None:
        """Record one run (seconds in, milliseconds kept)."""
        self.samples.append(wall_s * 1000)
        self.cpu.append(cpu_s * 1000)

    def clear(self) -> None:
        """Forget every run (after a failure)."""
        self.samples.clear()
        self.cpu.clear()

    @property
    def cpu_median(self) -> float:
        """Median CPU time."""
        return statistics.median(self.cpu)

    def cpu_cell(self) -> str:
        """Median CPU ms for a table."""
        if self.error is not None or not self.cpu:
            return "-"
        return f"{self.cpu_median:,.1f}"

    @property
    def median(self) -> float:
        """Median of the samples."""
        return statistics.median(self.samples)

    @property
    def best(self) -> float:
        """Fastest sample."""
        return min(self.samples)

    def cell(self) -> str:
        """`median (min)` for a table, or why there is no number."""
        if self.error is not None:
            return f"n/a ({self.error})"
        if not self.samples:
            return "-"
        if len(self.samples) == 1:
            return f"{self.median:,.1f}"
        return f"{self.median:,.1f} ({self.best:,.1f})"


def time_call(fn: Callable[[], object], runs: int, warmup: int = 1) -> Timing:
    """Median/min wall time of an in-process call; a raised exception is reported, not hidden."""
    timing = Timing()
    try:
        for _ in range(warmup):
            fn()
        for _ in range(runs):
            gc.collect()  # a collection left over from the previous run should not land in this one
            start, cpu = time.perf_counter(), time.process_time()
            fn()
            timing.add(time.perf_counter() - start, time.process_time() - cpu)
    except Exception as exc:
        timing.clear()
        timing.error = f"{type(exc).__name__}: {exc}"[:80]
    return timing


def time_pair(
    first: Callable[[], object], second: Callable[[], object], runs: int
) -> tuple[Timing, Timing]:
    """Time two calls in alternation, so a burst of load on a shared machine hits both."""
    a, b = Timing(), Timing()
    try:
        first()
        second()
        for _ in range(runs):
            for fn, timing in ((first, a), (second, b)):
                gc.collect()
                start, cpu = time.perf_counter(), time.process_time()
                fn()
                timing.add(time.perf_counter() - start, time.process_time() - cpu)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"[:80]
        for timing in (a, b):
            timing.clear()
            timing.error = error
        # Still time the first call alone, so `ast.parse` is reported when the engine fails.
        a = time_call(first, runs)
    return a, b


def process_env() -> dict[str, str]:
    """The environment for timed processes: bytecode caching on, as on a user's machine."""
    env = dict(os.environ)
    # Some shells here export PYTHONDONTWRITEBYTECODE=1, which makes every run recompile
    # gradguard's (editable, so not precompiled) sources; users have their .pyc files.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def time_process(
    argv: Sequence[str],
    runs: int,
    ok_codes: frozenset[int],
    *,
    cwd: Path,
    expect: bytes | None = None,
    warmup: int = 0,
) -> Timing:
    """Median/min wall time of a whole process, from spawn to exit, and its CPU time.

    `expect` is a string the tool's output must contain (e.g. its "1 file checked" line), so a
    tool that silently skipped the file is reported instead of looking fast.
    """
    timing = Timing()
    env = process_env()
    for run in range(warmup + runs):
        # Children's rusage grows by exactly this run's process tree: runs are sequential.
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, env=env, cwd=cwd, check=False)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        output = proc.stdout + proc.stderr
        failed = proc.returncode not in ok_codes or b"Traceback" in proc.stderr
        if failed or (expect is not None and expect not in output):
            last = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["?"]
            timing.error = f"exit {proc.returncode}: {last[0][:60]}"
            timing.clear()
            return timing
        if run >= warmup:
            timing.add(elapsed, cpu)
    return timing


def run_rule(rule: Rule, ctx: RuleContext) -> list[Finding]:
    """One rule's findings, materialised (rules may be generators)."""
    return list(rule.check(ctx))


@dataclass
class Phases:
    """In-process time of each engine step on one file (median ms)."""

    steps: dict[str, Timing]
    findings: int | None
    rules: dict[str, Timing]


def gc_paused(fn: Callable[[], object]) -> Callable[[], object]:
    """`fn` with the cyclic collector off while it runs, as `check_source` runs its steps."""

    def call() -> object:
        enabled = gc.isenabled()
        gc.disable()
        try:
            return fn()
        finally:
            if enabled:
                gc.enable()

    return call


def engine_phases(text: str, path: str, runs: int) -> Phases:
    """Time the engine's steps separately: line table, parse, analysis, noqa scan, each rule.

    Each step runs with the garbage collector paused, as inside `check_source`.
    """
    from gradguard.core import engine
    from gradguard.core.rule import RuleContext
    from gradguard.core.settings import Settings
    from gradguard.core.suppression import Suppressions
    from gradguard.core.text import SourceText

    source = SourceText(text)
    steps: dict[str, Timing] = {
        "SourceText": time_call(gc_paused(lambda: SourceText(text)), runs),
        "ast.parse (gc off)": time_call(gc_paused(lambda: ast.parse(text, path)), runs),
        "noqa scan": time_call(gc_paused(lambda: Suppressions.scan(source)), runs),
    }
    rules: dict[str, Timing] = {}
    findings: int | None = None
    tree = engine.parse(source, path)
    if isinstance(tree, ast.Module):
        try:
            from gradguard.analysis.model import analyse_module
        except ImportError as exc:
            steps["analysis"] = Timing(error=f"ImportError: {exc}"[:80])
        else:
            selected = engine.selected_rules(Settings(), path)
            steps["analysis"] = time_call(gc_paused(lambda: analyse_module(tree, text)), runs)
            analysis = analyse_module(tree, text)
            ctx = RuleContext(source=source, tree=tree, analysis=analysis, path=path)
            for rule in selected:
                check = gc_paused(functools.partial(run_rule, rule, ctx))
                rules[rule.code] = time_call(check, runs)
        try:
            findings = len(engine.check_source(text, path=path).findings)
        except Exception:
            findings = None
    return Phases(steps, findings, rules)


@dataclass
class Row:
    """Every measurement for one file."""

    file: CorpusFile
    lines: int
    ast_parse: Timing
    in_process: Timing
    process: Timing
    ruff: Timing
    torchfix: Timing
    fixit: Timing
    phases: Phases

    @property
    def cpu_ratio(self) -> float | None:
        """Like `ratio`, on CPU time."""
        pairs = zip(self.in_process.cpu, self.ast_parse.cpu, strict=False)
        ratios = [engine / parse for engine, parse in pairs if parse > 0]
        return statistics.median(ratios) if ratios else None

    @property
    def ratio(self) -> float | None:
        """gradguard in-process time over `ast.parse` time: the median of the paired runs."""
        pairs = zip(self.in_process.samples, self.ast_parse.samples, strict=False)
        ratios = [engine / parse for engine, parse in pairs]
        return statistics.median(ratios) if ratios else None


def count_lines(text: str) -> int:
    """Physical lines, as `wc -l` would count them for a file ending in a newline."""
    return len(text.splitlines())


def gradguard_command() -> list[str]:
    """The installed `gradguard` entry point next to this interpreter."""
    script = Path(sys.executable).parent / "gradguard"
    return [str(script)] if script.exists() else [sys.executable, "-m", "gradguard"]


def measure(
    f: CorpusFile, staged: Path, *, fast_runs: int, slow_runs: int, in_runs: int, peers: bool
) -> Row:
    """Measure one file (its staged copy) with every tool."""
    from gradguard.core.engine import check_source

    text = staged.read_text(encoding="utf-8")
    path = str(staged)
    cwd = staged.parent
    print(f"  {f.label} ({count_lines(text)} lines)", file=sys.stderr)
    ast_parse, in_process = time_pair(
        lambda: ast.parse(text, filename=path), lambda: check_source(text, path=path), in_runs
    )
    phases = engine_phases(text, path, max(3, in_runs // 2))
    # gradguard exits 1 when it has findings; 2 or a traceback is a failure. Without the
    # results cache, like ruff below: with it, every run after the warm-up was a cache hit.
    process = time_process(
        [*gradguard_command(), "check", "--no-cache", path],
        fast_runs,
        frozenset({0, 1}),
        cwd=cwd,
        warmup=1,
    )
    peer_bin = PEERS_VENV / "bin"
    ruff = torchfix = fixit = Timing(error="--no-peers")
    if peers:
        ruff = time_process(
            [str(peer_bin / "ruff"), "check", "--isolated", "--select", "ALL", "--no-cache", path],
            fast_runs,
            frozenset({0, 1}),
            cwd=cwd,
            warmup=1,
        )
        # TorchFix and Fixit take 10-30 s on a large file: one run there keeps the total sane.
        slow_runs = 1 if f.size == "large" else slow_runs
        torchfix = time_process(
            [str(peer_bin / "torchfix"), path],
            slow_runs,
            frozenset({0, 1}),
            cwd=cwd,
            expect=b"Finished checking 1 files",
        )
        fixit = time_process(
            [str(peer_bin / "fixit"), "lint", path],
            slow_runs,
            frozenset({0, 1}),
            cwd=cwd,
            expect=b"1 file",
        )
    return Row(f, count_lines(text), ast_parse, in_process, process, ruff, torchfix, fixit, phases)


def stage(files: Sequence[CorpusFile], into: Path) -> dict[CorpusFile, Path]:
    """Copy the files out of the repository, so no tool applies this repo's config or ignores.

    Fixit, for one, silently skips files under a git-ignored directory such as `.cache/`.
    """
    staged: dict[CorpusFile, Path] = {}
    for f in files:
        target = into / f"{f.dist}-{CORPUS_WHEELS[f.dist]}" / f.member
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f.path, target)
        staged[f] = target
    return staged


def machine_facts() -> list[str]:
    """Date, machine and versions, for the header of the results file."""
    cpu = cpu_model()
    commit = short_commit(ROOT)
    from gradguard.core.rule import all_rules

    try:
        rule_count = str(len(all_rules()))
    except Exception as exc:
        rule_count = f"? ({type(exc).__name__})"
    load = load_average()
    return [
        f"* date: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"* machine: `nproc` = {os.cpu_count()}, {cpu}, {platform.platform()}",
        f"* load average at the end of the run (1/5/15 min): {' '.join(load) or '?'}",
        f"* python: {platform.python_version()} ({sys.executable})",
        f"* gradguard: commit {commit or '?'}, {rule_count} rules",
        "* corpus: " + ", ".join(f"{d} {v}" for d, v in CORPUS_WHEELS.items()),
        "* peers (separate venv): " + ", ".join(PEER_PACKAGES),
    ]


def per_1k(total_ms: float, lines: int) -> str:
    """Milliseconds per thousand lines."""
    return f"{total_ms / lines * 1000:,.1f}"


def summary_table(rows: Sequence[Row]) -> list[str]:
    """Totals per tool: ms per 1k lines, and time relative to the `gradguard check` process."""
    tools: list[tuple[str, Callable[[Row], Timing]]] = [
        ("ast.parse (in-process)", lambda r: r.ast_parse),
        ("gradguard check_source (in-process)", lambda r: r.in_process),
        ("gradguard check (process)", lambda r: r.process),
        ("ruff --select ALL (process)", lambda r: r.ruff),
        ("TorchFix (process)", lambda r: r.torchfix),
        ("Fixit (process)", lambda r: r.fixit),
    ]
    out = [
        "| tool | files | lines | total ms (sum of medians) | ms / 1k lines "
        "| x gradguard process |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    process_total = {id(r): r.process.median for r in rows if r.process.samples}
    for name, get in tools:
        measured = [r for r in rows if get(r).samples]
        if not measured:
            out.append(f"| {name} | 0 | - | - | - | - |")
            continue
        lines = sum(r.lines for r in measured)
        total = sum(get(r).median for r in measured)
        both = [r for r in measured if id(r) in process_total]
        times = "-"
        if both:
            ratio = sum(get(r).median for r in both) / sum(process_total[id(r)] for r in both)
            times = f"{ratio:,.2f}"
        out.append(
            f"| {name} | {len(measured)} | {lines:,} | {total:,.1f} | {per_1k(total, lines)} "
            f"| {times} |"
        )
    return out


def render(rows: Sequence[Row], baseline: dict[str, Timing], args: argparse.Namespace) -> str:
    """The whole markdown report."""
    out = ["# `gradguard check` speed", ""]
    out += machine_facts()
    out += [f"* note: {args.note}"] if args.note else []
    out += [
        f"* runs: {args.in_runs} in-process, {args.fast_runs} per fast process "
        f"(gradguard, ruff), {args.slow_runs} per slow process (TorchFix, Fixit; 1 on large "
        "files); "
        "cells are `median (min)` in ms",
        "* ratio = gradguard in-process / `ast.parse`, the median of per-run ratios "
        "(the two are timed in alternation, so load on a shared machine hits both alike)",
        "* command: `"
        + shlex.join([".venv/bin/python", "benchmarks/bench_check.py", *sys.argv[1:]])
        + "`",
        "",
        "## Per file",
        "",
        "| file | lines | ast.parse ms | gradguard in-process ms | ratio | gradguard process ms "
        "| ruff ms | TorchFix ms | Fixit ms | findings |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        ratio = f"{r.ratio:.2f}x" if r.ratio is not None else "-"
        findings = "-" if r.phases.findings is None else str(r.phases.findings)
        out.append(
            f"| {r.file.label} | {r.lines:,} | {r.ast_parse.cell()} | {r.in_process.cell()} "
            f"| {ratio} | {r.process.cell()} | {r.ruff.cell()} | {r.torchfix.cell()} "
            f"| {r.fixit.cell()} | {findings} |"
        )
    out += [
        "",
        "## Per file, CPU time",
        "",
        "The same runs, as CPU time (user + sys, median ms; for processes, the whole process "
        "tree). On a loaded machine this is the steadier number: waiting for a core is not "
        "counted.",
        "",
        "| file | lines | ast.parse | gradguard in-process | ratio | gradguard process "
        "| ruff | TorchFix | Fixit |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        ratio = f"{r.cpu_ratio:.2f}x" if r.cpu_ratio is not None else "-"
        out.append(
            f"| {r.file.label} | {r.lines:,} | {r.ast_parse.cpu_cell()} "
            f"| {r.in_process.cpu_cell()} | {ratio} | {r.process.cpu_cell()} "
            f"| {r.ruff.cpu_cell()} | {r.torchfix.cpu_cell()} | {r.fixit.cpu_cell()} |"
        )
    out += ["", "## Totals", "", *summary_table(rows)]
    out += ["", "## Fixed costs (whole process)", ""]
    out += ["| command | ms | CPU ms |", "|---|---:|---:|"]
    out += [f"| {name} | {t.cell()} | {t.cpu_cell()} |" for name, t in baseline.items()]
    out += ["", "## Targets", "", *targets(rows)]
    out += ["", "## Engine steps (in-process, median ms)", "", *phase_table(rows)]
    return "\n".join(out) + "\n"


def targets(rows: Sequence[Row]) -> list[str]:
    """PASS/FAIL against the issue's done-when targets."""
    out: list[str] = []
    big = [r for r in rows if r.lines >= PROCESS_TARGET_MIN_LINES]
    for r in big:
        if r.process.samples:
            verdict = "PASS" if r.process.median < PROCESS_TARGET_MS else "FAIL"
            out.append(
                f"* {verdict}: whole-process `gradguard check` on {r.file.label} "
                f"({r.lines:,} lines): median {r.process.median:,.1f} ms, "
                f"min {r.process.best:,.1f} ms, CPU {r.process.cpu_median:,.1f} ms "
                f"(target < {PROCESS_TARGET_MS:.0f})"
            )
        else:
            out.append(f"* n/a: whole-process on {r.file.label}: {r.process.error}")
    for r in rows:
        if r.ratio is not None:
            verdict = "PASS" if r.ratio <= RATIO_TARGET else "FAIL"
            best = r.in_process.best / r.ast_parse.best
            out.append(
                f"* {verdict}: in-process / ast.parse on {r.file.label} ({r.lines:,} lines): "
                f"{r.ratio:.2f}x, min/min {best:.2f}x, CPU {r.cpu_ratio or 0:.2f}x "
                f"(target <= {RATIO_TARGET:.0f}x)"
            )
        else:
            out.append(f"* n/a: in-process ratio on {r.file.label}: {r.in_process.error}")
    return out


def phase_table(rows: Sequence[Row]) -> list[str]:
    """Where the in-process time goes, step by step and rule by rule."""
    steps: list[str] = []
    rules: list[str] = []
    for r in rows:
        steps += [s for s in r.phases.steps if s not in steps]
        rules += [c for c in r.phases.rules if c not in rules]
    columns = steps + rules
    out = [
        "| file | lines | " + " | ".join(columns) + " |",
        "|---|---:|" + "---:|" * len(columns),
    ]
    for r in rows:
        cells: list[str] = []
        for c in columns:
            t = r.phases.steps.get(c) or r.phases.rules.get(c)
            if t is None:
                cells.append("-")
            elif t.error is not None:
                cells.append("error")
            else:
                cells.append(f"{t.median:,.2f}")
        out.append(f"| {r.file.label} | {r.lines:,} | " + " | ".join(cells) + " |")
    if any(t.error for r in rows for t in r.phases.steps.values()):
        errors = {t.error for r in rows for t in r.phases.steps.values() if t.error}
        out += ["", "Errors: " + "; ".join(sorted(errors))]
    return out


def fixed_costs(runs: int, workdir: Path) -> dict[str, Timing]:
    """Interpreter start-up and `gradguard check` on a one-line file: the floor of every run."""
    tiny = workdir / "tiny_torch.py"
    tiny.write_text("import torch\n", encoding="utf-8")
    python = sys.executable
    ok = frozenset({0})
    return {
        "`python -c pass`": time_process([python, "-c", "pass"], runs, ok, cwd=workdir),
        "`python -c 'import gradguard.core.engine'`": time_process(
            [python, "-c", "import gradguard.core.engine"], runs, ok, cwd=workdir, warmup=1
        ),
        "`gradguard check` on a 1-line file": time_process(
            [*gradguard_command(), "check", str(tiny)],
            runs,
            frozenset({0, 1}),
            cwd=workdir,
            warmup=1,
        ),
    }


def profile(f: CorpusFile, runs: int, output: Path) -> None:
    """cProfile `check_source` on one file and write the hottest functions to `output`."""
    import cProfile
    import io
    import pstats

    from gradguard.core.engine import check_source

    text = f.path.read_text(encoding="utf-8")
    check_source(text, path=str(f.path))
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(runs):
        check_source(text, path=str(f.path))
    profiler.disable()
    buffer = io.StringIO()
    stats = pstats.Stats(profiler, stream=buffer)
    buffer.write(f"# cProfile of check_source on {f.label}, {runs} runs (times include overhead)\n")
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumtime").print_stats("gradguard", 30)
    # Absolute paths of this machine are noise in a committed file.
    report = buffer.getvalue().replace(str(ROOT) + "/", "")
    report = report.replace(sys.prefix + "/", "").replace(sys.base_prefix + "/", "")
    output.write_text(report, encoding="utf-8")
    print(f"profile written to {output}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="one file per size, fewer runs")
    parser.add_argument("--no-peers", action="store_true", help="skip ruff, TorchFix and Fixit")
    parser.add_argument("--output", type=Path, default=RESULTS / "check.md")
    parser.add_argument("--note", default="", help="a line for the report's header")
    parser.add_argument(
        "--profile",
        nargs="?",
        const=FILES[-1].member,
        metavar="PATH_PART",
        help="only cProfile check_source on one file (default: the largest; else the first whose "
        "wheel path contains PATH_PART) into results/check-profile.txt",
    )
    args = parser.parse_args(argv)
    if args.profile:
        chosen = next((f for f in FILES if args.profile in f.member), None)
        if chosen is None:
            parser.error(f"no benchmark file matches {args.profile!r}")
        ensure_corpus([chosen])
        profile(chosen, 5, RESULTS / "check-profile.txt")
        return 0
    if args.quick:
        files = [next(f for f in FILES if f.size == size) for size in ("small", "medium", "large")]
        args.in_runs, args.fast_runs, args.slow_runs = 10, 3, 1
    else:
        files = list(FILES)
        args.in_runs, args.fast_runs, args.slow_runs = 20, 5, 2
    ensure_corpus(files)
    peers = not args.no_peers
    if peers:
        ensure_peers()
    if shutil.which("git") is None:
        print("git not found: the commit is left out of the header", file=sys.stderr)
    print("measuring", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="gradguard-bench-") as tmp:
        workdir = Path(tmp)
        staged = stage(files, workdir)
        baseline = fixed_costs(args.fast_runs, workdir)
        rows = [
            measure(
                f,
                staged[f],
                fast_runs=args.fast_runs,
                slow_runs=args.slow_runs,
                in_runs=args.in_runs,
                peers=peers,
            )
            for f in files
        ]
    report = render(rows, baseline, args)
    print(report)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(report, encoding="utf-8")
    print(f"written to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
