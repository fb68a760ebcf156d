"""Where `scripts/setup.d/60-vsix-platforms.sh` keeps every VS Code package it built.

Building all eight packages takes minutes (mostly vsce compressing ~10 MB per package), so the
setup step builds them once per machine into
`${GRADGUARD_VSIX_CACHE:-${XDG_CACHE_HOME:-~/.cache}/gradguard-vsix}/<key>/`, where the key is a
hash of the files that decide what a package bundles (the packaging script, the Python
dependencies, the extension manifest and lock file, .vscodeignore). The inspection test reads
the same folder, so it always sees packages built from the current packaging inputs.

Run as a script, it prints that folder.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INPUTS = (
    "scripts/package-vsix.sh",
    "pyproject.toml",
    "package.json",
    "package-lock.json",
    ".vscodeignore",
)


def cache_dir(root: Path = ROOT) -> Path:
    """The folder holding `gradguard-<target>.vsix` for the current packaging inputs."""
    digest = hashlib.sha256()
    for name in INPUTS:
        digest.update(name.encode() + b"\0" + (root / name).read_bytes() + b"\0")
    base = os.environ.get("GRADGUARD_VSIX_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "gradguard-vsix"
    )
    return Path(base) / digest.hexdigest()[:16]


def targets(root: Path = ROOT) -> list[str]:
    """Every target the packaging script builds, as it lists them."""
    out = subprocess.run(
        ["bash", str(root / "scripts/package-vsix.sh"), "--list-targets"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return out.split()


if __name__ == "__main__":
    print(cache_dir())
