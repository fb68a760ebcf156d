#!/usr/bin/env bash
# The clean world (tests/test_clean_world.py, benchmarks/precision.py): the pinned PyPI archives
# listed in tests/clean_world/manifest.toml, downloaded once, checked against the manifest's
# sha256 and unpacked into a cache outside the repository
# (${GRADGUARD_CLEAN_WORLD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gradguard-clean-world}).
# Idempotent: with everything cached it only compares stamps (no network, well under a second).
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-.venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3
exec "$PYTHON" tests/clean_world_sources.py
