"""Suite-wide fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _private_results_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Give each test its own `gradguard check` results cache.

    Tests that call the CLI in process run with the repository as working directory, whose
    project cache would then collect (and share between tests) results computed under
    monkeypatched rules. Tests of the cache itself override the variable.
    """
    directory = tmp_path_factory.mktemp("gradguard-cache")
    monkeypatch.setenv("GRADGUARD_CACHE_DIR", str(directory))
    return directory
