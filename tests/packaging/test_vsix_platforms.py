"""Every VS Code package carries native code for its own platform only, for CPython 3.10-3.14.

The packages are built by `scripts/setup.d/60-vsix-platforms.sh` (the documented
`VSCE_TARGET=all npm run package`, cached per machine: see vsix_cache.py). Each one is unpacked
here and every native module in it is read: its file name must be one the target's CPython
loads, and its header must name the target's operating system, CPU and C library. The
universal package must hold no native code and leave libcst to the user's environment.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from vsix_binaries import describe
from vsix_cache import cache_dir, targets

PYTHONS = ("310", "311", "312", "313", "314")
ROOT = Path(__file__).resolve().parents[2]
LIBS = "extension/bundled/libs/"
NATIVE_SUFFIXES = (".so", ".pyd", ".dylib", ".dll")


@dataclass(frozen=True)
class Platform:
    """What a target's native modules must be built for, and how CPython names them there."""

    os: str
    arch: str
    libc: str | None
    wheel_platform: str  # regular expression for the platform part of a wheel tag

    def ext_suffixes(self, version: str) -> set[str]:
        """The extension-module suffixes CPython `version` (e.g. "312") loads on this platform."""
        if self.os == "win32":
            return {f".cp{version}-{'win_amd64' if self.arch == 'x86_64' else 'win_arm64'}.pyd"}
        if self.os == "darwin":
            return {f".cpython-{version}-darwin.so"}
        libc = "gnu" if self.libc == "glibc" else "musl"
        suffixes = {f".cpython-{version}-{self.arch}-linux-{libc}.so"}
        if libc == "musl" and version == "310":
            # CPython 3.10 did not tell musl from glibc in its extension suffix (3.11 does).
            suffixes.add(f".cpython-{version}-{self.arch}-linux-gnu.so")
        return suffixes


PLATFORMS = {
    "linux-x64": Platform("linux", "x86_64", "glibc", r"manylinux\w*_x86_64"),
    "linux-arm64": Platform("linux", "aarch64", "glibc", r"manylinux\w*_aarch64"),
    "alpine-x64": Platform("linux", "x86_64", "musl", r"musllinux_\d+_\d+_x86_64"),
    "darwin-x64": Platform("darwin", "x86_64", None, r"macosx_\d+_\d+_(x86_64|universal2)"),
    "darwin-arm64": Platform("darwin", "aarch64", None, r"macosx_\d+_\d+_(arm64|universal2)"),
    "win32-x64": Platform("win32", "x86_64", None, r"win_amd64"),
    "win32-arm64": Platform("win32", "aarch64", None, r"win_arm64"),
}


def _package(target: str) -> zipfile.ZipFile:
    path = cache_dir() / f"gradguard-{target}.vsix"
    assert path.is_file(), (
        f"{path} is missing: run scripts/setup.d/60-vsix-platforms.sh (scripts/test runs it)"
    )
    return zipfile.ZipFile(path)


def _natives(package: zipfile.ZipFile) -> list[str]:
    return [
        name
        for name in package.namelist()
        if name.startswith(LIBS) and name.endswith(NATIVE_SUFFIXES)
    ]


def test_every_vs_code_platform_and_universal_is_built() -> None:
    """The script's targets are the seven platforms with native wheels, plus universal."""
    assert set(targets()) == {*PLATFORMS, "universal"}


@pytest.mark.parametrize("target", sorted(PLATFORMS))
def test_native_modules_match_the_target(target: str) -> None:
    """Every native module loads on the target's CPython and was built for its OS and CPU."""
    platform = PLATFORMS[target]
    package = _package(target)
    manifest = package.read("extension.vsixmanifest").decode()
    assert f'TargetPlatform="{target}"' in manifest
    loadable = {suffix: v for v in PYTHONS for suffix in platform.ext_suffixes(v)}
    natives = _natives(package)
    assert natives, "no native module at all"
    for name in natives:
        suffix = next((s for s in loadable if name.endswith(s)), None)
        assert suffix is not None, f"{name}: no CPython 3.10-3.14 on {target} loads this name"
        binary = describe(package.read(name))
        assert binary.os == platform.os, name
        assert platform.arch in binary.arches, (name, binary.arches)
        if platform.libc is not None:
            assert binary.libc == platform.libc, (name, binary.libc)
    parsers = {
        v
        for v in PYTHONS
        for s in platform.ext_suffixes(v)
        if LIBS + "libcst/native" + s in natives
    }
    assert parsers == set(PYTHONS), f"libcst's parser for CPython {sorted(parsers)} only"


@pytest.mark.parametrize("target", sorted(PLATFORMS))
def test_bundled_wheels_carry_the_target_platform_tag(target: str) -> None:
    """Each bundled distribution's WHEEL tags are pure (`any`) or the target's platform."""
    pattern = re.compile(PLATFORMS[target].wheel_platform)
    package = _package(target)
    wheels = [
        n for n in package.namelist() if n.startswith(LIBS) and n.endswith(".dist-info/WHEEL")
    ]
    assert any("/libcst-" in n for n in wheels)
    for name in wheels:
        tags = re.findall(r"^Tag: (\S+)$", package.read(name).decode(), re.MULTILINE)
        assert tags, name
        for tag in tags:
            platform_tag = tag.rsplit("-", 1)[1]
            assert platform_tag == "any" or pattern.fullmatch(platform_tag), (name, tag)


@pytest.mark.parametrize("target", [*sorted(PLATFORMS), "universal"])
def test_package_holds_the_server_and_nothing_built_or_stray(target: str) -> None:
    """The client, gradguard and its pure-Python dependencies; no bytecode, no sources."""
    names = set(_package(target).namelist())
    for required in ("out/extension.js", "package.json"):
        assert "extension/" + required in names, required
    for module in ("gradguard/cli.py", "gradguard/lsp/server.py", "pygls/__init__.py"):
        assert LIBS + module in names, module
    assert LIBS + "lsprotocol/types.py" in names
    assert LIBS + "tomli/__init__.py" in names, "Python 3.10 needs tomli"
    assert not any("__pycache__" in n or n.startswith("extension/client/") for n in names)
    assert not any(n.startswith("extension/node_modules/") for n in names)


def test_universal_package_takes_libcst_from_the_users_python() -> None:
    """No native code and no libcst: the server imports libcst from the chosen environment."""
    package = _package("universal")
    assert "TargetPlatform" not in package.read("extension.vsixmanifest").decode()
    assert _natives(package) == []
    assert not any(n.startswith(LIBS + "libcst") for n in package.namelist())


def test_universal_package_runs_on_a_python_with_only_libcst(tmp_path: Path) -> None:
    """Started as the client starts it (PYTHONPATH = bundled/libs), the universal package's
    server runs on a fresh environment that has nothing but libcst, and computes a fix."""
    package = _package("universal")
    for name in package.namelist():
        if name.startswith(LIBS):
            package.extract(name, tmp_path)
    venv = tmp_path / "venv"
    uv = str(Path(sysconfig.get_path("scripts")) / "uv")
    subprocess.run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run([uv, "pip", "install", "--quiet", "--python", python, "libcst"], check=True)
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path / LIBS),
        "PYTHONNOUSERSITE": "1",
        "PYTHONSAFEPATH": "1",
    }
    probe = "import libcst.native, gradguard; print(libcst.__file__); print(gradguard.__file__)"
    where = subprocess.run(
        [python, "-c", probe], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert where[0].startswith(str(venv)), where
    assert where[1].startswith(str(tmp_path / LIBS)), where
    proc = subprocess.run(
        [python, "-m", "gradguard", "check", "--diff", "buggy_rnn_hidden_state.py"],
        cwd=ROOT / "examples",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert ".detach()" in proc.stdout, proc.stdout
