"""argparse asks the terminal's width (through shutil, which imports bz2 and lzma) for every
`add_argument`; GradGuard's help formatter reads it without shutil, the same way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.cli.test_cli_startup import imported_modules


def test_a_plain_check_does_not_import_shutil(tmp_path: Path) -> None:
    (tmp_path / "tiny.py").write_text("import torch\n\n\ndef double(x):\n    return x * 2\n")
    modules = imported_modules(["check", "--no-cache", "tiny.py"], tmp_path)
    assert {"shutil", "bz2", "lzma"} & modules == set()


def _widest_help_line(columns: int) -> int:
    env = dict(os.environ, COLUMNS=str(columns))
    proc = subprocess.run(
        [sys.executable, "-m", "gradguard", "check", "--help"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    return max(len(line) for line in proc.stdout.splitlines())


def test_help_is_wrapped_to_the_columns_asked_for() -> None:
    wide, narrow = _widest_help_line(120), _widest_help_line(60)
    # argparse leaves two columns free; at 120 the option help fills more than 80 would.
    assert 80 < wide <= 118
    assert narrow < wide
