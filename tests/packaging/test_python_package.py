"""The Python distributions install as command-line tools and run, as the README's Install says.

`python -m build` makes the sdist and the wheel (once per source tree: they are kept under
build/python-dist/<hash of the packaged files>/); then `uv tool install` builds and installs the
sdist and `pipx install` installs the wheel, each into a private temporary tool folder, and the
installed `gradguard` command checks an example file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

from gradguard import __version__

ROOT = Path(__file__).resolve().parents[2]
PACKAGED = ("pyproject.toml", "README.md", "LICENSE")
EXAMPLE = ROOT / "examples" / "buggy_no_grad_loss.py"
SCRIPTS = Path(sysconfig.get_path("scripts"))


def _package_sources() -> list[Path]:
    """The server package's files as a wheel should carry them (no bytecode, no build debris)."""
    package = ROOT / "server" / "gradguard"
    return sorted(
        p
        for p in package.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    )


def _source_key() -> str:
    digest = hashlib.sha256()
    for path in [*(ROOT / name for name in PACKAGED), *_package_sources()]:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _run(args: list[str], *, env: dict[str, str] | None = None, cwd: Path = ROOT) -> str:
    proc = subprocess.run(
        args,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, f"{args} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def dists() -> tuple[Path, Path]:
    """(sdist, wheel) from `python -m build`, built once per source tree."""
    out = ROOT / "build" / "python-dist" / _source_key()
    sdist = out / f"gradguard-{__version__}.tar.gz"
    wheel = out / f"gradguard-{__version__}-py3-none-any.whl"
    if not (sdist.is_file() and wheel.is_file()):
        for stale in out.parent.glob("*"):  # earlier source trees' builds are never read again
            shutil.rmtree(stale)
        _run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)])
    return sdist, wheel


def test_wheel_and_sdist_carry_the_whole_package(dists: tuple[Path, Path]) -> None:
    """Every file of server/gradguard is in both; the sdist has the README and licence too."""
    sdist, wheel = dists
    expected = {str(p.relative_to(ROOT / "server")) for p in _package_sources()}
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    assert expected <= in_wheel, sorted(expected - in_wheel)
    assert "gradguard/py.typed" in in_wheel
    prefix = f"gradguard-{__version__}/"
    with tarfile.open(sdist) as archive:
        in_sdist = {name.removeprefix(prefix) for name in archive.getnames()}
    assert {f"server/{name}" for name in expected} <= in_sdist
    assert set(PACKAGED) <= in_sdist
    metadata = zipfile.ZipFile(wheel).read(f"gradguard-{__version__}.dist-info/METADATA").decode()
    assert f"\nVersion: {__version__}\n" in metadata
    assert "\nLicense-Expression: MIT\n" in metadata
    assert "\nRequires-Python: >=3.10\n" in metadata
    assert "# GradGuard" in metadata, "the README is the long description"
    assert f"gradguard-{__version__}.dist-info/licenses/LICENSE" in in_wheel


def _user_cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def _check_installed(bin_dir: Path) -> None:
    """The installed command reports its version and finds GG101 in the example."""
    gradguard = bin_dir / ("gradguard.exe" if os.name == "nt" else "gradguard")
    assert _run([str(gradguard), "--version"]).strip() == f"gradguard {__version__}"
    proc = subprocess.run(
        [str(gradguard), "check", str(EXAMPLE)],
        cwd=EXAMPLE.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "GG101" in proc.stdout, proc.stdout


def test_uv_tool_installs_the_sdist(dists: tuple[Path, Path], tmp_path: Path) -> None:
    """`uv tool install gradguard-X.tar.gz`: builds the wheel from the sdist alone, then runs."""
    sdist, _ = dists
    env = {"UV_TOOL_DIR": str(tmp_path / "tools"), "UV_TOOL_BIN_DIR": str(tmp_path / "bin")}
    _run([str(SCRIPTS / "uv"), "tool", "install", "--quiet", str(sdist)], env=env, cwd=tmp_path)
    _check_installed(tmp_path / "bin")


def test_pipx_installs_the_wheel(dists: tuple[Path, Path], tmp_path: Path) -> None:
    """`pipx install gradguard-X-py3-none-any.whl` into a private PIPX_HOME, then runs."""
    _, wheel = dists
    env = {
        "PIPX_HOME": str(tmp_path / "pipx"),
        "PIPX_BIN_DIR": str(tmp_path / "bin"),
        "PIPX_MAN_DIR": str(tmp_path / "man"),
        # pipx's shared pip venv is the same for every run and every clone: keep it per machine.
        "PIPX_SHARED_LIBS": str(_user_cache() / "gradguard-pipx-shared"),
    }
    _run([sys.executable, "-m", "pipx", "install", "--quiet", str(wheel)], env=env, cwd=tmp_path)
    _check_installed(tmp_path / "bin")
