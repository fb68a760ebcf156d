#!/usr/bin/env bash
# Every VS Code package (`scripts/package-vsix.sh --list-targets`: seven platforms + universal),
# built once per machine for tests/packaging/test_vsix_platforms.py into a cache outside the
# repository keyed by the packaging inputs (tests/packaging/vsix_cache.py says which).
# Needs the extension's npm packages (40-vscode.sh runs first). Downloads go to uv's own cache.
# Idempotent: with the packages cached it only hashes five files (well under a second).
set -euo pipefail
cd "$(dirname "$0")/../.."
python=.venv/bin/python
[ -x "$python" ] || python=python3

out=$("$python" tests/packaging/vsix_cache.py)
if [ -f "$out/.complete" ]; then
  echo "60-vsix-platforms: ready ($out)"
  exit 0
fi
echo "60-vsix-platforms: building every VS Code package into $out"
VSCE_TARGET=all PYTHON=$python bash scripts/package-vsix.sh
cache_root=$(dirname "$out")
mkdir -p "$cache_root"
tmp=$(mktemp -d "$cache_root/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for target in $(bash scripts/package-vsix.sh --list-targets); do
  cp "dist/gradguard-$target.vsix" "$tmp/"
done
touch "$tmp/.complete"
# Only the current inputs' packages are kept: older keys are ~80 MB each and never read again.
find "$cache_root" -mindepth 1 -maxdepth 1 -type d ! -name '.tmp.*' -exec rm -rf {} +
mv "$tmp" "$out"
trap - EXIT
echo "60-vsix-platforms: ready ($out)"
