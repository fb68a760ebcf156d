"""Start-up cost: `gradguard check` must not import the heavy libraries it does not need."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

# libcst (~0.3 s) is imported only when a rule builds a fix; pygls and lsprotocol only by
# `gradguard lsp`; torch never. The rest are imported on demand by one output mode.
NEVER_ON_A_PLAIN_CHECK = ("libcst", "pygls", "lsprotocol", "torch", "difflib", "tempfile", "json")


def imported_modules(args: list[str], cwd: Path) -> dict[str, int]:
    """Run `python -X importtime -m gradguard ARGS`; map module name to cumulative microseconds."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gradguard", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    modules: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|\s*(\S+)", line)
        if match:
            modules[match.group(3)] = int(match.group(2))
    assert "gradguard.cli" in modules
    return modules


@pytest.mark.parametrize(
    "source",
    [
        "x = 1\n",  # never mentions torch: skipped before parsing
        "import torch\n\n\ndef double(x):\n    return x * 2\n",  # analysed, nothing to fix
    ],
)
def test_plain_check_does_not_import_heavy_modules(tmp_path: Path, source: str) -> None:
    (tmp_path / "tiny.py").write_text(source)
    modules = imported_modules(["check", "tiny.py"], tmp_path)
    heavy = sorted(name for name in modules if name.split(".")[0] in NEVER_ON_A_PLAIN_CHECK)
    assert heavy == []
    # Naming a file needs no directory walk, so no git subprocess either.
    assert "subprocess" not in modules
