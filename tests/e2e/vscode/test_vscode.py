"""The VS Code extension: client unit tests, the .vsix build, and a real VS Code (code-server).

The end-to-end test installs the built .vsix into code-server, whose python3 is the system
Python without gradguard, so what it proves is that the extension's bundled server works on a
machine where nothing was pip-installed. `scripts/setup.d/40-vscode.sh` installs the rig.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
ARTIFACTS = ROOT / "test-artifacts"
VSIX = ROOT / "dist" / "gradguard-linux-x64.vsix"
# code-server's python3 must not be the project venv's (which has gradguard installed).
SYSTEM_PATH = "/usr/bin:/bin"
BUNDLED_PYTHONS = ("310", "311", "312", "313", "314")


def rig_dir() -> Path:
    """The cached Node 24 + code-server folder, named as 40-vscode.sh names it."""
    versions = dict(
        line.split("=", 1)
        for line in (HERE / "rig.env").read_text().splitlines()
        if line and not line.startswith("#")
    )
    cache = os.environ.get("GRADGUARD_VSCODE_RIG_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "gradguard-vscode-rig"
    )
    name = f"code-server-{versions['CODE_SERVER_VERSION']}-node-{versions['NODE24_VERSION']}"
    return Path(cache) / name


def run(args: list[str], *, timeout: float, env: dict[str, str] | None = None) -> str:
    """Run a command from the repository root; fail with its output unless it exits 0."""
    proc = subprocess.run(
        args,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0, f"{' '.join(args)} exited with {proc.returncode}:\n{proc.stdout}"
    return proc.stdout


def test_client_unit_tests_pass() -> None:
    """`npm test`: strict type check, then node's test runner over the client's pure modules."""
    output = run(["npm", "test"], timeout=300)
    # node's test runner ends with "tests N / pass N / fail 0" lines.
    assert re.search(r"\bpass [1-9]\d*\b", output), output
    assert re.search(r"\bfail 0\b", output), output
    print(output[-400:])


@pytest.fixture(scope="module")
def vsix() -> Path:
    """The .vsix built by the documented command, `npm run package`."""
    VSIX.unlink(missing_ok=True)
    run(["npm", "run", "package"], timeout=900, env={"PYTHON": sys.executable})
    assert VSIX.is_file()
    return VSIX


def test_vsix_carries_the_server_for_every_supported_python(vsix: Path) -> None:
    """The package holds the bundled client and gradguard + dependencies for CPython 3.10-3.14."""
    names = set(zipfile.ZipFile(vsix).namelist())
    libs = "extension/bundled/libs/"
    assert "extension/out/extension.js" in names
    assert "extension/package.json" in names
    modules = (
        "gradguard/cli.py",
        "gradguard/lsp/server.py",
        "pygls/__init__.py",
        "lsprotocol/types.py",
    )
    for module in modules:
        assert libs + module in names, module
    for version in BUNDLED_PYTHONS:
        assert libs + f"libcst/native.cpython-{version}-x86_64-linux-gnu.so" in names, version
    assert libs + "tomli/__init__.py" in names, "Python 3.10 needs tomli"
    assert not any(name.startswith("extension/node_modules/") for name in names)
    assert not any("__pycache__" in name or name.startswith("extension/client/") for name in names)


def test_code_server_shows_gg201_and_applies_the_quick_fix(vsix: Path) -> None:
    """In code-server: squiggle, Problems entry, Ctrl+. fix saved to disk; file and notebook."""
    rig = rig_dir()
    assert (rig / ".complete").is_file(), f"{rig} is missing: run scripts/setup.d/40-vscode.sh"
    ARTIFACTS.mkdir(exist_ok=True)
    output = run(
        ["node", str(HERE / "e2e.mjs")],
        timeout=600,
        env={
            "GG_RIG": str(rig),
            "GG_VSIX": str(vsix),
            "GG_ARTIFACTS": str(ARTIFACTS),
            "GG_SERVER_PATH": SYSTEM_PATH,
        },
    )
    assert "e2e passed" in output, output
    assert (ARTIFACTS / "vscode-quickfix.png").stat().st_size > 10_000
    print(output)
