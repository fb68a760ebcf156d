"""What a benchmark result file says about where it was measured: shared by the benchmarks."""

from __future__ import annotations

import subprocess
from pathlib import Path


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, `?` where there is none."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def short_commit(root: Path) -> str:
    """The checked-out commit of `root` (short hash), empty outside a git work tree."""
    return subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()


def load_average() -> list[str]:
    """The 1/5/15-minute load averages, empty where /proc/loadavg does not exist."""
    loadavg = Path("/proc/loadavg")
    return loadavg.read_text().split()[:3] if loadavg.exists() else []
