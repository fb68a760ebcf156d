"""Helpers for the CLI tests: run the real `gradguard` console script or `python -m gradguard`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

# The console script pip installed next to the interpreter that runs the tests.
CONSOLE_SCRIPT = Path(sys.executable).parent / "gradguard"


@dataclass(frozen=True)
class Completed:
    """What a `gradguard` process did."""

    code: int
    stdout: str
    stderr: str
    stdout_bytes: bytes


Runner = Callable[..., Completed]


def run_gradguard(
    args: Sequence[str],
    *,
    cwd: Path,
    stdin: bytes | None = None,
    module: bool = False,
    env: dict[str, str] | None = None,
) -> Completed:
    """Run `gradguard ARGS` (or `python -m gradguard ARGS`) in `cwd` and capture everything."""
    command = [sys.executable, "-m", "gradguard"] if module else [str(CONSOLE_SCRIPT)]
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment.update(env or {})
    proc = subprocess.run(
        [*command, *args],
        cwd=cwd,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        env=environment,
        timeout=120,
        check=False,
    )
    return Completed(
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8"),
        proc.stdout,
    )


@pytest.fixture
def gradguard(tmp_path: Path) -> Runner:
    """Run the console script in `tmp_path` (pass `cwd=` to run elsewhere)."""

    def run(*args: str, **kwargs: object) -> Completed:
        cwd = kwargs.pop("cwd", tmp_path)
        assert isinstance(cwd, Path)
        return run_gradguard(args, cwd=cwd, **kwargs)  # type: ignore[arg-type]

    return run


@pytest.fixture
def git() -> Callable[..., None]:
    """Run git (a real dependency of `.gitignore` support: the test fails without it)."""
    executable = shutil.which("git")
    assert executable is not None, "git must be installed for the .gitignore tests"

    def run(*args: str, cwd: Path) -> None:
        subprocess.run([executable, *args], cwd=cwd, check=True, capture_output=True, timeout=60)

    return run


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


@pytest.fixture
def write() -> Callable[[Path, str | bytes], Path]:
    """Create a file (and its folders); str is UTF-8 with line breaks untouched, bytes verbatim."""
    return _write
