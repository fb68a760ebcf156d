#!/usr/bin/env bash
# The clean world (tests/test_clean_world.py, benchmarks/precision.py): the pinned PyPI archives
# listed in tests/clean_world/manifest.toml, downloaded once, checked against the manifest's
# sha256 and unpacked into a cache outside the repository
# (${GRADGUARD_CLEAN_WORLD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gradguard-clean-world}).
# Idempotent: with everything cached it only compares stamps (no network, well under a second).
set -euo pipefail
cd "$(dirname "$0")/../.."
# The project's venv (scripts/test creates it first); only the standard library is needed.
python=.venv/bin/python
[ -x "$python" ] || python=python3
exec "$python" tests/clean_world_sources.py
