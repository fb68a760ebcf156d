"""The project index on a large project: build time, memory, re-publish latency, new findings.

Run from the repository root with the project venv (PYTHONPATH=server for a work tree):

    .venv/bin/python benchmarks/bench_project_index.py                     # ~10 minutes
    .venv/bin/python benchmarks/bench_project_index.py --real-code MIRRORS # + real-code diff

The large project is the whole `transformers` package of the pinned wheel of `bench_check.py`
(`CORPUS_WHEELS`, fetched once with `pip download` into `benchmarks/.cache/wheels`), unpacked
into a temporary folder outside the repository. Measured:

* **index build, in process**: what the language server does on `initialized` (every Python
  file read for its imports, the files others import summarised: `gradguard.project.live`),
  in a child process: seconds and its peak RSS (`ru_maxrss`).
* **CLI**: `gradguard check --no-cache --jobs 1` on the tree, wall time and peak RSS of the
  process; and the same run with the project index turned off (the CLI has no switch for
  that: a child runs the CLI's `main` with `gradguard.project.session.checking` replaced by a
  no-op), to show what the index costs and which findings it adds.
* **server**: `gradguard lsp` on the tree, from `initialized` to the end of its
  `window/workDoneProgress` (the index built), its RSS then; then 40 real files of the tree
  opened (each waited for), its RSS again (the speed issue's target: at most 100 MiB).
* **re-publish latency**: the fixture project `gg101_no_grad_helper` (train.py imports a
  helper of lib/losses.py): both files open, `didChange` on the helper toggling its
  `@torch.no_grad()` (a change of its summary) to the `publishDiagnostics` of train.py, N
  times, median and p95; in a small workspace, and inside the transformers workspace (the
  large index loaded, 40 files open). It includes the server's pause after typing
  (`lsp.project.REVISE_AFTER_S`) before an edited file is summarised again.
* **real code** (`--real-code MIRRORS`, the mirrors of `real_code.py`): every repository
  checked with and without the index; the findings only the index gives, with their verdicts
  from `real_code_judgements.toml`.

The report is `benchmarks/results/project_index.md`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench_check import CORPUS_WHEELS, RESULTS, ROOT, WHEELS, wheel_name
from bench_lsp import LspClient, percentile, rss_kib, uri_of
from machine import cpu_model, load_average, short_commit

HERE = Path(__file__).resolve().parent
FIXTURE = ROOT / "tests" / "workspace" / "projects" / "gg101_no_grad_helper" / "buggy"
HELPER = "lib/losses.py"
DECORATOR = "@torch.no_grad()\n"
OPEN_FILES = 40
SERVER = [sys.executable, "-m", "gradguard", "lsp"]
PROGRESS_TOKEN = "gradguard-index"
TIMEOUT_S = 1800.0


# -- the large project --------------------------------------------------------------------------


def ensure_wheel(dist: str) -> Path:
    """The pinned wheel of `dist`, downloaded once (as `bench_check.ensure_corpus` does)."""
    version = CORPUS_WHEELS[dist]
    pattern = f"{wheel_name(dist)}-{version}-*.whl"
    WHEELS.mkdir(parents=True, exist_ok=True)
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
    return wheel


def unpack(dist: str, into: Path) -> Path:
    """Every `.py` file of the pinned wheel under `into/<dist>-<version>/`."""
    tree = into / f"{dist}-{CORPUS_WHEELS[dist]}"
    with zipfile.ZipFile(ensure_wheel(dist)) as archive:
        for member in archive.namelist():
            if member.endswith(".py") and ".." not in member.split("/"):
                target = tree / member
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.read(member))
    (tree / ".git").write_text("")  # the project root, as in a clone
    return tree


def tree_size(tree: Path) -> tuple[int, int]:
    """Python files and lines under `tree`."""
    files = sorted(tree.rglob("*.py"))
    lines = sum(p.read_bytes().count(b"\n") for p in files)
    return len(files), lines


def real_files(tree: Path, count: int) -> list[Path]:
    """`count` real files of the tree that mention torch, spread over it (2-200 KB each)."""
    found = [
        p
        for p in sorted(tree.rglob("*.py"))
        if 2_000 < p.stat().st_size < 200_000 and b"torch" in p.read_bytes()
    ]
    step = max(1, len(found) // count)
    return found[::step][:count]


# -- children: measured in their own process ------------------------------------------------


def child_index(tree: Path) -> dict[str, Any]:
    """Build the index as the language server warms it; time and peak RSS."""
    from gradguard.project.live import LiveIndex, imported_files
    from gradguard.workspace import source_files

    started = time.perf_counter()
    live = LiveIndex()
    python = [p for p in source_files([str(tree)]).files if p.suffix == ".py"]
    links = {path: live.read(path) for path in python}
    read_s = time.perf_counter() - started
    imported = imported_files(links)
    live.release(set(links) - set(imported))
    summarised = 0
    for path in imported:
        summarised += 1
        if not live.summarise(path):
            break  # the index's budget is full, as the server stops warming
    return {
        "files": len(python),
        "summarised": summarised,
        "read_s": read_s,
        "seconds": time.perf_counter() - started,
        "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }


def child_cli(args: list[str], *, index: bool) -> int:
    """`gradguard check ARGS` in this process, with or without the project index."""
    if not index:
        import contextlib

        from gradguard.project import session

        session.checking = lambda path, project=None: contextlib.nullcontext()  # type: ignore[assignment,misc]
    from gradguard.cli import main

    return main(["check", *args])


def run_measured(command: list[str], cwd: Path) -> tuple[float, int, str]:
    """Run a process: wall seconds, peak RSS (KiB) of the process, its stdout."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        seconds = time.perf_counter() - started
        out.seek(0)
        return seconds, usage.ru_maxrss, out.read().decode("utf-8", "replace")


def cli_runs(tree: Path) -> dict[str, Any]:
    """`gradguard check` on the tree with and without the index (one process, one job)."""
    results: dict[str, Any] = {}
    args = ["--no-cache", "--jobs", "1", "--output-format", "json", "."]
    for label, child in (("index", "--child-cli"), ("no index", "--child-cli-no-index")):
        command = [sys.executable, str(Path(__file__).resolve()), child, *args]
        seconds, peak, out = run_measured(command, tree)
        findings = json.loads(out or "[]")
        results[label] = {
            "seconds": seconds,
            "maxrss_kib": peak,
            "findings": sorted(
                {(f["filename"], f["location"]["row"], f["code"]) for f in findings}
            ),
        }
        print(f"cli {label}: {seconds:.1f} s, {peak / 1024:.0f} MiB", file=sys.stderr)
    return results


# -- the server -----------------------------------------------------------------------------


def start_server(root: Path, stderr: Any) -> LspClient:
    client = LspClient(SERVER, root, stderr)
    client.request(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": uri_of(root),
            "capabilities": {
                "window": {"workDoneProgress": True},
                "textDocument": {"publishDiagnostics": {"versionSupport": True}},
            },
            "initializationOptions": {"debounceMs": 0},
        },
    )
    return client


def wait_progress_end(client: LspClient, after: int) -> float:
    """The moment the index's progress ended."""
    deadline = time.monotonic() + TIMEOUT_S
    index = after
    with client._cond:
        while True:
            while index < len(client._received):
                item = client._received[index]
                index += 1
                message = item.message
                params = message.get("params", {})
                if (
                    message.get("method") == "$/progress"
                    and params.get("token") == PROGRESS_TOKEN
                    and params.get("value", {}).get("kind") == "end"
                ):
                    return item.at
            remaining = deadline - time.monotonic()
            if client._closed or remaining <= 0:
                raise RuntimeError("the index never finished")
            client._cond.wait(remaining)


def open_file(client: LspClient, path: Path, version: int = 1) -> str:
    uri = uri_of(path)
    mark = client.mark()
    client.notify(
        "textDocument/didOpen",
        {
            "textDocument": {
                "uri": uri,
                "languageId": "python",
                "version": version,
                "text": path.read_text(encoding="utf-8"),
            }
        },
    )
    client.wait_diagnostics(uri, version, mark, timeout=TIMEOUT_S)
    return uri


def hwm_kib(pid: int) -> int | None:
    """VmHWM (peak RSS) of a process."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return None


def republish_latency(client: LspClient, project: Path, edits: int) -> list[float]:
    """didChange on the helper (toggling its decorator) -> publishDiagnostics of train.py."""
    train = open_file(client, project / "train.py")
    helper_path = project / HELPER
    helper = open_file(client, helper_path)
    original = helper_path.read_text(encoding="utf-8")
    healed = original.replace(DECORATOR, "")
    samples = []
    for version in range(2, edits + 2):
        text = healed if version % 2 == 0 else original
        mark = client.mark()
        sent = client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": helper, "version": version},
                "contentChanges": [{"text": text}],
            },
        )
        got = client.wait_diagnostics(train, None, mark)
        codes = [d["code"] for d in got.message["params"]["diagnostics"]]
        if ("GG101" in codes) != (text == original):
            raise RuntimeError(f"train.py published {codes} after edit {version}")
        samples.append((got.at - sent) * 1000)
        time.sleep(0.05)
    return samples


def server_runs(tree: Path, workdir: Path, edits: int) -> dict[str, Any]:
    results: dict[str, Any] = {}
    log = (workdir / "server.stderr.log").open("wb")
    # A small workspace: the fixture alone.
    small = workdir / "small"
    shutil.copytree(FIXTURE, small)
    client = start_server(small, log)
    mark = client.mark()
    client.notify("initialized", {})
    wait_progress_end(client, mark)
    results["small"] = republish_latency(client, small, edits)
    client.shutdown()
    # The large workspace: the index built, 40 files open, then the fixture inside it.
    inside = tree / "zz_fixture"
    shutil.copytree(FIXTURE, inside)
    (inside / ".git").write_text("")
    client = start_server(tree, log)
    pid = client.proc.pid
    results["rss_start_kib"] = rss_kib(pid)
    mark = client.mark()
    sent = client.notify("initialized", {})
    ended = wait_progress_end(client, mark)
    results["index_s"] = ended - sent
    time.sleep(1.0)
    results["rss_indexed_kib"] = rss_kib(pid)
    results["hwm_indexed_kib"] = hwm_kib(pid)
    started = time.perf_counter()
    for path in real_files(tree, OPEN_FILES):
        open_file(client, path)
    results["open_s"] = time.perf_counter() - started
    time.sleep(2.0)
    results["rss_open_kib"] = rss_kib(pid)
    results["hwm_open_kib"] = hwm_kib(pid)
    results["large"] = republish_latency(client, inside, edits)
    results["rss_end_kib"] = rss_kib(pid)
    client.shutdown()
    shutil.rmtree(inside)
    print(f"server: {results['index_s']:.1f} s to index", file=sys.stderr)
    return results


# -- real code ----------------------------------------------------------------------------------


def real_code_diff(mirrors: Path, budget_s: float) -> dict[str, Any]:
    """Findings of `real_code.py` with and without the index (None when over `budget_s`)."""
    import contextlib

    import real_code

    from gradguard.project import session

    judged = real_code.load_judgements()
    original = session.checking
    found: dict[str, set[tuple[str, str, int, str]]] = {}
    seconds: dict[str, float] = {}
    checked = []
    started = time.perf_counter()
    for label in ("index", "no index"):
        if label == "no index":
            real_code.session.checking = lambda path, project=None: contextlib.nullcontext()  # type: ignore[assignment,misc]
        found[label] = set()
        begun = time.perf_counter()
        for repository, pinned in real_code.REPOSITORIES.items():
            mirror = mirrors / repository.replace("/", "+") / "repo"
            if not mirror.is_dir():
                continue
            if label == "index":
                checked.append(repository)
            findings, _ = real_code.check_repository(repository, mirror, pinned)
            found[label] |= {(f.repository, f.path, f.line, f.code) for f in findings}
            if time.perf_counter() - started > budget_s:
                real_code.session.checking = original
                return {"skipped": f"over {budget_s / 60:.0f} minutes"}
        seconds[label] = time.perf_counter() - begun
    real_code.session.checking = original
    new = sorted(found["index"] - found["no index"])
    lost = sorted(found["no index"] - found["index"])
    return {
        "repositories": len(checked),
        "seconds": seconds,
        "total": len(found["index"]),
        "new": [(*key, *judged.get(key, ("unjudged", ""))) for key in new],
        "lost": lost,
    }


# -- report -------------------------------------------------------------------------------------


def ms(samples: Sequence[float]) -> str:
    return f"{statistics.median(samples):.0f} / {percentile(samples, 95):.0f}"


def mib(kib: int | None) -> str:
    return "-" if kib is None else f"{kib / 1024:.0f}"


def render(data: dict[str, Any], args: argparse.Namespace) -> str:
    index, cli, server = data["index"], data["cli"], data["server"]
    files, lines = data["size"]
    out = [
        "# The project index on a large project",
        "",
        f"Produced by `benchmarks/bench_project_index.py` on {data['when']}, commit "
        f"{data['commit'] or '?'}: {cpu_model()}, {os.cpu_count()} cores (shared with other "
        f"work; load average at start {' '.join(data['load']) or '?'}), Python "
        f"{sys.version.split()[0]}.",
        "",
        f"Project: the `transformers` {CORPUS_WHEELS['transformers']} package of the pinned "
        f"wheel, unpacked: {files:,} Python files, {lines:,} lines.",
        "",
        "## Index build and memory",
        "",
        "| what | time | peak RSS (MiB) |",
        "|---|---:|---:|",
        f"| index built in process (read {index['files']:,} files, summarise the "
        f"{index['summarised']:,} others import), as the server warms it "
        f"| {index['seconds']:.1f} s (reading {index['read_s']:.1f} s) "
        f"| {mib(index['maxrss_kib'])} |",
    ]
    for label in ("index", "no index"):
        run = cli[label]
        out.append(
            f"| `gradguard check --no-cache --jobs 1 .`, {label} | {run['seconds']:.1f} s "
            f"| {mib(run['maxrss_kib'])} |"
        )
    out += [
        f"| `gradguard lsp`: `initialized` to the end of its indexing progress "
        f"| {server['index_s']:.1f} s | {mib(server['hwm_indexed_kib'])} |",
        "",
        "Server RSS (MiB): at start "
        f"{mib(server['rss_start_kib'])}, index built {mib(server['rss_indexed_kib'])}, "
        f"{OPEN_FILES} real files of the tree open ({server['open_s']:.1f} s to open and "
        f"analyse them) {mib(server['rss_open_kib'])} (peak so far "
        f"{mib(server['hwm_open_kib'])}), after the re-publish runs "
        f"{mib(server['rss_end_kib'])}. The speed issue's target is at most 100 MiB with "
        f"{OPEN_FILES} files open and the index of a large project.",
        "",
        "Findings of the CLI on the tree: "
        f"{len(cli['index']['findings'])} with the index, "
        f"{len(cli['no index']['findings'])} without.",
    ]
    added = sorted(
        set(map(tuple, cli["index"]["findings"])) - set(map(tuple, cli["no index"]["findings"]))
    )
    out += [f"* new with the index: `{f}:{row}` {code}" for f, row, code in added]
    small, large = server["small"], server["large"]
    out += [
        "",
        "## Re-publish after editing a summarised file",
        "",
        f"`didChange` on `{HELPER}` (its `@torch.no_grad()` toggled) to the `publishDiagnostics`"
        f" of `train.py`, which imports it; {args.edits} edits, each waited for. The time "
        "includes the server's pause after typing before it summarises an edited file again "
        "(250 ms, `REVISE_AFTER_S`).",
        "",
        "| workspace | median / p95 (ms) | min / max (ms) |",
        "|---|---:|---:|",
        f"| the fixture alone | {ms(small)} | {min(small):.0f} / {max(small):.0f} |",
        f"| inside the transformers tree (index built, {OPEN_FILES} files open) | {ms(large)} "
        f"| {min(large):.0f} / {max(large):.0f} |",
        "",
        "## New findings on the real-code benchmark",
        "",
    ]
    real = data.get("real")
    if real is None:
        out.append("Not run (pass `--real-code MIRRORS`).")
    elif "skipped" in real:
        out.append(f"Skipped: {real['skipped']}.")
    else:
        seconds = real["seconds"]
        out += [
            f"`benchmarks/real_code.py`'s {real['repositories']} repositories checked with the "
            f"index ({seconds['index']:.0f} s) and without it ({seconds['no index']:.0f} s): "
            f"{real['total']} findings with the index, {len(real['new'])} of them only with "
            f"it, {len(real['lost'])} lost with it.",
            "",
        ]
        if real["new"]:
            out += ["| where | rule | verdict | why |", "|---|---|---|---|"]
            for repo, path, line, code, verdict, reason in real["new"]:
                out.append(f"| `{repo}` `{path}:{line}` | {code} | {verdict} | {reason} |")
        for key in real["lost"]:
            out.append(f"* lost with the index: {key}")
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("--child-cli", "--child-cli-no-index"):
        return child_cli(argv[1:], index=argv[0] == "--child-cli")
    if argv and argv[0] == "--child-index":
        print(json.dumps(child_index(Path(argv[1]))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=30, help="re-publish samples (30)")
    parser.add_argument("--real-code", type=Path, help="mirrors folder of real_code.py")
    parser.add_argument("--real-code-budget", type=float, default=600.0, help="seconds (600)")
    parser.add_argument("--output", type=Path, default=RESULTS / "project_index.md")
    args = parser.parse_args(argv)
    data: dict[str, Any] = {
        "when": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": short_commit(ROOT),
        "load": load_average(),
    }
    with tempfile.TemporaryDirectory(prefix="gradguard-project-index-") as scratch:
        workdir = Path(scratch)
        tree = unpack("transformers", workdir)
        data["size"] = tree_size(tree)
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child-index", str(tree)],
            capture_output=True,
            text=True,
            check=True,
        )
        data["index"] = json.loads(done.stdout)
        print(f"index: {data['index']}", file=sys.stderr)
        data["cli"] = cli_runs(tree)
        data["server"] = server_runs(tree, workdir, args.edits)
    if args.real_code is not None:
        sys.path.insert(0, str(HERE))
        data["real"] = real_code_diff(args.real_code, args.real_code_budget)
    report = render(data, args)
    args.output.write_text(report, encoding="utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
