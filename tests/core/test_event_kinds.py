"""A misspelt kind of analysis event is a type error, not a check that silently never fires."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"


def _mypy(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    """mypy --strict on a snippet that reads a `ValueUse`'s kind (in its own process: mypy
    changes interpreter-wide state such as the recursion limit)."""
    snippet = tmp_path / "snippet.py"
    snippet.write_text(
        "from gradguard.analysis.facts import ValueUse\n\n\n"
        f"def check(use: ValueUse) -> bool:\n    return {body}\n",
        encoding="utf-8",
    )
    command = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(snippet)]
    env = {**os.environ, "MYPYPATH": str(SERVER)}
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False)


def test_a_misspelt_event_kind_is_rejected(tmp_path: Path) -> None:
    done = _mypy(tmp_path, 'use.kind == "convresion"')
    assert done.returncode == 1 and "Non-overlapping equality check" in done.stdout, done.stdout


def test_a_real_event_kind_is_accepted(tmp_path: Path) -> None:
    done = _mypy(tmp_path, 'use.kind == "conversion"')
    assert done.returncode == 0, done.stdout + done.stderr
