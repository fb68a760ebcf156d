"""The language server's memory over a long editing session: does it grow?

Run from the repository root with the project venv:

    .venv/bin/python benchmarks/bench_memory.py                  # 20,000 edits
    .venv/bin/python benchmarks/bench_memory.py --edits 2000     # a shorter session

Opens 40 real files (the benchmark corpus of `bench_check.py` plus modules of the installed
torch's `nn` and `optim` packages, read as text, never imported) in one `gradguard lsp`, then
replays edits round-robin over them: one character typed into, or deleted from, a comment
line at the end of a file, and now and then a half-typed line (`x = (`) that is completed on
the next edit, so recovery runs too. Every edit waits for the publishDiagnostics of its
version (half-typed versions keep the last diagnostics and publish nothing, so those are not
waited for), so each version is analysed. The server's RSS (VmRSS) is sampled at start, after
opening, and every `--every` edits: once while the edits go on, and once more after a pause
in typing of `--pause` seconds (the server gives memory back when analyses pause:
`gradguard.lsp.housekeeping`). The report is `benchmarks/results/memory.md`.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from bench_check import CORPUS_WHEELS, FILES, RESULTS, ROOT, ensure_corpus, stage
from bench_lsp import LspClient, gradguard_server_command, rss_kib, uri_of
from machine import cpu_model, load_average, short_commit

OPEN_FILES = 40
TAIL = "# typed here: "


@dataclass
class Sample:
    """RSS after some number of edits."""

    edits: int
    seconds: float
    rss_kib: int  # while editing
    paused_kib: int  # after a pause in typing


def torch_files(count: int) -> list[Path]:
    """Real PyTorch modules, as text (the installed torch's package directory, not imported)."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        return []
    package = Path(spec.origin).parent
    found = sorted((package / "nn" / "modules").glob("*.py")) + sorted(
        (package / "optim").glob("*.py")
    )
    return [p for p in found if p.name != "__init__.py" and p.stat().st_size > 2000][:count]


def stage_files(workdir: Path) -> list[Path]:
    """Copy 40 real files into `workdir` (outside the repository)."""
    ensure_corpus(FILES)
    staged = list(stage(FILES, workdir).values())
    for index, path in enumerate(torch_files(OPEN_FILES - len(staged))):
        target = workdir / "torch_src" / f"{index:02d}_{path.name}"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
        staged.append(target)
    return staged


def initialize(client: LspClient, workdir: Path) -> None:
    client.request(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": uri_of(workdir),
            "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}}},
            "initializationOptions": {"debounceMs": 0},
        },
    )
    client.notify("initialized", {})


def edit_text(text: str, step: int) -> tuple[str, bool]:
    """The document after edit `step`, and whether it parses (half-typed every 50th)."""
    base = text.rsplit("\n" + TAIL, 1)[0]
    typed = "x" * (step % 7)
    if step % 50 == 49:
        return base + "\nx = (\n" + TAIL + typed, False
    return base + "\n" + TAIL + typed, True


def run(args: argparse.Namespace) -> tuple[list[Sample], int, float]:
    with tempfile.TemporaryDirectory(prefix="gradguard-memory-") as tmp:
        workdir = Path(tmp)
        files = stage_files(workdir)
        texts = {path: path.read_text(encoding="utf-8") for path in files}
        lines = sum(text.count("\n") for text in texts.values())
        log = (workdir / "server.stderr.log").open("wb")
        client = LspClient(args.server, workdir, log)
        started = time.perf_counter()
        samples: list[Sample] = []

        def sample(edits: int) -> None:
            seconds, typing = time.perf_counter() - started, rss_kib(client.proc.pid) or 0
            time.sleep(args.pause)
            samples.append(Sample(edits, seconds, typing, rss_kib(client.proc.pid) or 0))
            print(
                f"{edits:>6} edits  {typing / 1024:7.1f} MiB, "
                f"{samples[-1].paused_kib / 1024:7.1f} MiB after a pause",
                file=sys.stderr,
            )

        try:
            initialize(client, workdir)
            sample(0)
            versions = dict.fromkeys(files, 1)
            for path in files:
                mark = client.mark()
                document: dict[str, object] = {"uri": uri_of(path), "languageId": "python"}
                document["version"] = 1
                client.notify(
                    "textDocument/didOpen", {"textDocument": {**document, "text": texts[path]}}
                )
                client.wait_diagnostics(uri_of(path), 1, mark)
            sample(0)
            for step in range(args.edits):
                path = files[step % len(files)]
                texts[path], parses = edit_text(texts[path], step // len(files))
                versions[path] += 1
                mark = client.mark()
                client.notify(
                    "textDocument/didChange",
                    {
                        "textDocument": {"uri": uri_of(path), "version": versions[path]},
                        "contentChanges": [{"text": texts[path]}],
                    },
                )
                if parses:
                    client.wait_diagnostics(uri_of(path), versions[path], mark)
                if (step + 1) % args.every == 0:
                    sample(step + 1)
        finally:
            client.shutdown()
            log.close()
        return samples, lines, time.perf_counter() - started


def render(samples: Sequence[Sample], lines: int, seconds: float, args: argparse.Namespace) -> str:
    start, opened, last = samples[0], samples[1], samples[-1]
    after = samples[1:]
    peak = max(s.rss_kib for s in after)
    paused_peak = max(s.paused_kib for s in after)
    out = [
        "# Language server memory over an editing session",
        "",
        f"* date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"* machine: {os.cpu_count()} cores, {cpu_model()}",
        f"* load average at the end (1/5/15 min): {' '.join(load_average())}",
        f"* gradguard: commit {short_commit(ROOT)}; server command `{' '.join(args.server)}`",
        "* files: "
        + f"{OPEN_FILES} open ({lines:,} lines): the bench corpus ("
        + ", ".join(f"{d} {v}" for d, v in CORPUS_WHEELS.items())
        + ") and modules of the installed torch's `nn.modules` and `optim`",
        f"* {args.edits:,} full-text didChange edits, round-robin, each waited for; debounce 0; "
        f"{seconds:,.0f} s in all (pauses included)",
        "* RSS is read while the edits go on, then again after a pause in typing of "
        f"{args.pause:g} s (no edit, no sample in between)",
        "* command: `python benchmarks/bench_memory.py "
        f"--edits {args.edits} --every {args.every} --pause {args.pause:g}`",
        "",
        "| edits | seconds | RSS MiB while editing | RSS MiB after a pause |",
        "|---:|---:|---:|---:|",
        *(
            f"| {'start (initialized)' if s is start else f'{s.edits:,}'} | {s.seconds:.1f} "
            f"| {s.rss_kib / 1024:.1f} | {s.paused_kib / 1024:.1f} |"
            for s in samples
        ),
        "",
        f"* after opening: {opened.rss_kib / 1024:.1f} MiB while editing, "
        f"{opened.paused_kib / 1024:.1f} MiB after a pause",
        f"* at the end: {last.rss_kib / 1024:.1f} MiB while editing, "
        f"{last.paused_kib / 1024:.1f} MiB after a pause",
        f"* peak after opening: {peak / 1024:.1f} MiB while editing, "
        f"{paused_peak / 1024:.1f} MiB after a pause",
        f"* growth from opened to end, after a pause: "
        f"{(last.paused_kib - opened.paused_kib) / 1024:+.1f} MiB",
    ]
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=20_000, help="how many edits (20,000)")
    parser.add_argument("--every", type=int, default=1000, help="sample RSS every N edits")
    parser.add_argument(
        "--pause", type=float, default=3.0, help="seconds of no typing before the second sample"
    )
    parser.add_argument("--server", default=None, help="server command line")
    parser.add_argument("--output", type=Path, default=RESULTS / "memory.md")
    args = parser.parse_args(argv)
    args.server = args.server.split() if args.server else gradguard_server_command()
    samples, lines, seconds = run(args)
    report = render(samples, lines, seconds, args)
    args.output.write_text(report, encoding="utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
