#!/usr/bin/env bash
# Build the VS Code extension packages: `npm run package` (linux-x64), or
# `VSCE_TARGET="darwin-arm64 win32-x64" npm run package`, or `VSCE_TARGET=all npm run package`.
#
#   dist/gradguard-<target>.vsix = the client (bundled by esbuild)
#                                + bundled/libs: gradguard and its dependencies (pygls, lsprotocol,
#                                  libcst with its native parser for CPython 3.10 to 3.14)
#
# Targets (`scripts/package-vsix.sh --list-targets`): one package per VS Code platform we carry
# native wheels for, plus `universal`, which carries only the pure-Python libraries and takes
# libcst from the user's Python environment (the Marketplace offers it on every other platform).
#
# libcst ships one native wheel per CPython version (no abi3 wheel), so the packages are installed
# once per version and merged: the pure-Python files are identical and the native modules carry
# the version in their file names (native.cpython-311-x86_64-linux-gnu.so, native.cp311-win_amd64.pyd),
# so they sit side by side. tests/packaging/test_vsix_platforms.py checks every native module of
# every package against its target.
#
# The wheels are resolved by uv (installed from PyPI into build/vsix-tools on first use) because
# pip evaluates environment markers for the interpreter running it, not the target version and
# platform. uv keeps its downloads in its per-machine cache (~/.cache/uv, or UV_CACHE_DIR), so a
# second build of every target downloads nothing.
#
# Known gap: PyYAML publishes no Windows-on-ARM wheel for CPython 3.10, 3.11 (PyYAML) and 3.13
# (pyyaml-ft). libcst imports it only in its codemod command line (libcst.tool), which GradGuard
# never loads, so for those three it is left out rather than built from source for a foreign
# platform; libcst's own wheels exist for all five versions.
#
# Environment: PYTHON (default python3, needs pip; used only to build the wheel and install uv),
# VSCE_TARGET (targets separated by spaces, or `all`; default linux-x64).
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(linux-x64 linux-arm64 alpine-x64 darwin-x64 darwin-arm64 win32-x64 win32-arm64 universal)
python_versions=(3.10 3.11 3.12 3.13 3.14)
# target:version pairs resolved without PyYAML (see "Known gap" above).
without_yaml=" win32-arm64:3.10 win32-arm64:3.11 win32-arm64:3.13 "

# The platforms (uv --python-platform) whose wheels a target carries. The universal package is
# resolved for three platforms and merged, so that a dependency needed on one platform only would
# still be in it; it then holds no native module at all.
uv_platforms() {
  case "$1" in
    linux-x64) echo x86_64-manylinux_2_28 ;;  # also accepts manylinux2014 (2_17) wheels
    linux-arm64) echo aarch64-manylinux_2_28 ;;
    alpine-x64) echo x86_64-unknown-linux-musl ;;
    darwin-x64) echo x86_64-apple-darwin ;;
    darwin-arm64) echo aarch64-apple-darwin ;;
    win32-x64) echo x86_64-pc-windows-msvc ;;
    win32-arm64) echo aarch64-pc-windows-msvc ;;
    universal) echo x86_64-manylinux_2_28 x86_64-pc-windows-msvc aarch64-apple-darwin ;;
    *) return 1 ;;
  esac
}

if [ "${1:-}" = --list-targets ]; then
  printf '%s\n' "${all_targets[@]}"
  exit 0
fi

PYTHON=${PYTHON:-python3}
requested=${VSCE_TARGET:-linux-x64}
[ "$requested" = all ] && requested="${all_targets[*]}"
for target in $requested; do
  if ! uv_platforms "$target" >/dev/null; then
    echo "package-vsix: unsupported target $target (${all_targets[*]}, or all)" >&2
    exit 2
  fi
done

work=build/vsix
tools=build/vsix-tools
rm -rf "$work" bundled/libs
mkdir -p "$work/wheel" bundled dist

if [ ! -x "$tools/bin/uv" ]; then
  echo "package-vsix: installing uv into $tools"
  "$PYTHON" -m pip install --quiet --disable-pip-version-check --target "$tools" 'uv>=0.9,<1'
fi
uv=$tools/bin/uv

echo "package-vsix: building the gradguard wheel"
# From a copy: building in place reuses setuptools' build/lib, which keeps deleted modules.
mkdir -p "$work/src"
tar -c --exclude=__pycache__ --exclude='*.egg-info' pyproject.toml README.md LICENSE server | tar -x -C "$work/src"
"$PYTHON" -m pip wheel --quiet --disable-pip-version-check --no-deps --wheel-dir "$work/wheel" "$work/src"
wheel=$(ls "$work"/wheel/gradguard-*.whl)
printf 'libcst\n' >"$work/no-libcst.txt"
printf 'pyyaml\npyyaml-ft\n' >"$work/no-yaml.txt"

# Install gradguard's dependencies for every CPython version and platform of $1 into $work/site.
install_site() {
  local target=$1 version platform
  local -a extra
  for version in "${python_versions[@]}"; do
    for platform in $(uv_platforms "$target"); do
      extra=()
      [ "$target" = universal ] && extra=(--excludes "$work/no-libcst.txt")
      [[ "$without_yaml" == *" $target:$version "* ]] && extra=(--excludes "$work/no-yaml.txt")
      echo "package-vsix: $target: dependencies for CPython $version ($platform)"
      "$uv" pip install --quiet --no-compile --target "$work/site/$version-$platform" \
        --python-version "$version" --python-platform "$platform" --only-binary :all: \
        "${extra[@]}" "$wheel"
    done
  done
}

# Merge the install trees into bundled/libs; any differing file outside *.dist-info is an error.
merge_site() {
  local natives=$1
  "$PYTHON" - "$work/site" bundled/libs "$natives" <<'PY'
import filecmp
import shutil
import sys
from pathlib import Path

site, out, expected = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
for root in sorted(site.iterdir()):
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
natives = sorted(p.name for p in out.glob("libcst/native.*") if p.suffix in (".so", ".pyd"))
print("package-vsix: libcst native modules:", ", ".join(natives) or "none")
if len(natives) != expected:
    sys.exit(f"package-vsix: expected {expected} libcst native modules, found {len(natives)}")
if expected == 0:
    binaries = [str(p) for p in out.rglob("*") if p.suffix in (".so", ".pyd", ".dylib", ".dll")]
    if binaries:
        sys.exit(f"package-vsix: the universal package must hold no native code: {binaries}")
PY
}

for target in $requested; do
  rm -rf "$work/site" bundled/libs
  install_site "$target"
  if [ "$target" = universal ]; then
    merge_site 0
    target_args=()
  else
    merge_site "${#python_versions[@]}"
    target_args=(--target "$target")
  fi
  echo "package-vsix: vsce package ${target_args[*]:-(universal)}"
  npx --no-install vsce package "${target_args[@]}" --no-dependencies --skip-license \
    --out "dist/gradguard-$target.vsix"
  ls -l "dist/gradguard-$target.vsix"
done
