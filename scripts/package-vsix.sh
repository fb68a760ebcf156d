#!/usr/bin/env bash
# Build a self-contained, platform-specific VS Code extension: `npm run package`.
#
#   dist/gradguard-<target>.vsix = the client (bundled by esbuild)
#                                + bundled/libs: gradguard and its dependencies (pygls, lsprotocol,
#                                  libcst with its native parser for CPython 3.10, 3.11, 3.12, 3.13)
#
# libcst ships one native wheel per CPython version (no abi3 wheel), so the packages are installed
# once per version and merged: the pure-Python files are identical and the native modules carry
# the version in their file names (native.cpython-311-x86_64-linux-gnu.so), so they sit side by side.
#
# The wheels are resolved by uv (installed from PyPI into build/vsix-tools on first use) because
# pip evaluates environment markers for the interpreter running it, not the target version, and
# would leave out e.g. tomli and exceptiongroup, which only Python 3.10 needs.
#
# Environment: PYTHON (default python3, needs pip; used only to build the wheel and install uv),
# VSCE_TARGET (linux-x64 or linux-arm64; default linux-x64).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
target=${VSCE_TARGET:-linux-x64}
case "$target" in
  linux-x64) arch=x86_64 ;;
  linux-arm64) arch=aarch64 ;;
  *) echo "package-vsix: unsupported target $target (linux-x64, linux-arm64)" >&2; exit 2 ;;
esac
python_versions=(3.10 3.11 3.12 3.13)

work=build/vsix
tools=build/vsix-tools
rm -rf "$work" bundled/libs
mkdir -p "$work/wheel" "$work/site" bundled dist

if [ ! -x "$tools/bin/uv" ]; then
  echo "package-vsix: installing uv into $tools"
  "$PYTHON" -m pip install --quiet --disable-pip-version-check --target "$tools" 'uv>=0.5,<1'
fi

echo "package-vsix: building the gradguard wheel"
# From a copy: building in place reuses setuptools' build/lib, which keeps deleted modules.
mkdir -p "$work/src"
tar -c --exclude=__pycache__ --exclude='*.egg-info' pyproject.toml README.md server | tar -x -C "$work/src"
"$PYTHON" -m pip wheel --quiet --disable-pip-version-check --no-deps --wheel-dir "$work/wheel" "$work/src"
wheel=$(ls "$work"/wheel/gradguard-*.whl)

for version in "${python_versions[@]}"; do
  echo "package-vsix: dependencies for CPython $version ($target)"
  # manylinux_2_28 also accepts the older manylinux_2_17 (manylinux2014) wheels.
  "$tools/bin/uv" pip install --quiet --no-compile --target "$work/site/$version" \
    --python-version "$version" --python-platform "$arch-manylinux_2_28" --only-binary :all: "$wheel"
done

"$PYTHON" - "$work/site" bundled/libs "${python_versions[@]}" <<'PY'
"""Merge the per-version install trees; any differing file outside *.dist-info is an error."""
import filecmp
import shutil
import sys
from pathlib import Path

site, out, versions = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
for version in versions:
    root = site / version
    for src in sorted(root.rglob("*")):
        rel = src.relative_to(root)
        if src.is_dir() or rel.parts[0] == "bin" or "__pycache__" in rel.parts:
            continue
        dest = out / rel
        if dest.exists():
            if not filecmp.cmp(src, dest, shallow=False) and not rel.parts[0].endswith(".dist-info"):
                sys.exit(f"package-vsix: {rel} differs between Python versions; cannot merge")
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
natives = sorted(p.name for p in out.glob("libcst/native*.so"))
print("package-vsix: libcst native modules:", ", ".join(natives))
if len(natives) != len(versions):
    sys.exit(f"package-vsix: expected {len(versions)} libcst native modules, found {len(natives)}")
PY

echo "package-vsix: vsce package --target $target"
npx --no-install vsce package --target "$target" --no-dependencies --skip-license \
  --out "dist/gradguard-$target.vsix"
ls -l "dist/gradguard-$target.vsix"
