"""Start-up cost: `gradguard check` must not import what the run does not use.

Structural, not timed: `python -X importtime` lists every module a process imported.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

# libcst (~0.3 s) is imported only when a rule builds a fix; pygls and lsprotocol only by
# `gradguard lsp`; torch never. The rest are imported on demand by one output mode.
NEVER_ON_A_PLAIN_CHECK = ("libcst", "pygls", "lsprotocol", "torch", "difflib", "tempfile", "json")

# A file that never mentions torch needs none of this: not the engine or the rules, not the
# cache (nothing to look up), not a worker pool, not another output format or the server.
NOT_FOR_A_FILE_WITHOUT_TORCH = (
    "gradguard.analysis",
    "gradguard.cache",
    "gradguard.core.engine",
    "gradguard.core.rule",
    "gradguard.lsp",
    "gradguard.output.github",
    "gradguard.output.json",
    "gradguard.output.sarif",
    "gradguard.rewrite",
    "gradguard.rules",
    "concurrent",
    "hashlib",
    "logging",
    "multiprocessing",
    "subprocess",
)


# `python -m gradguard ARGS`, plus a hook that lists every module loaded when the process
# ends. `-X importtime` alone would miss modules loaded with importlib.import_module (the
# output formats are), which it does not report.
_RUN_AND_LIST = """
import atexit, runpy, sys
atexit.register(lambda: sys.stderr.write("\\nMODULES " + " ".join(sorted(sys.modules)) + "\\n"))
sys.argv[0] = "gradguard"
runpy.run_module("gradguard", run_name="__main__", alter_sys=True)
"""


def imported_modules(args: list[str], cwd: Path) -> set[str]:
    """Run `python -X importtime -m gradguard ARGS`; the names of all modules it loaded."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", _RUN_AND_LIST, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    timed = {m.group(1) for m in re.finditer(r"^import time:.*\| +(\S+)$", proc.stderr, re.M)}
    [listed] = re.findall(r"^MODULES (.*)$", proc.stderr, re.M)
    modules = set(listed.split())
    assert "gradguard.cli" in modules and "gradguard.cli" in timed
    return modules | timed  # importtime also names imports that were tried and failed


def _under(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.mark.parametrize(
    "source",
    [
        "x = 1\n",  # never mentions torch: skipped before parsing
        "import torch\n\n\ndef double(x):\n    return x * 2\n",  # analysed, nothing to fix
    ],
)
def test_plain_check_does_not_import_heavy_modules(tmp_path: Path, source: str) -> None:
    (tmp_path / "tiny.py").write_text(source)
    # The cache reads and writes JSON; without it, not even json is imported.
    modules = imported_modules(["check", "--no-cache", "tiny.py"], tmp_path)
    assert _under(modules, NEVER_ON_A_PLAIN_CHECK) == []
    # Naming a file needs no directory walk, so no git subprocess either; one file is not
    # worth a worker pool.
    assert _under(modules, ("subprocess", "multiprocessing", "concurrent")) == []


@pytest.mark.parametrize("source", ["", "x = 1\n", "# no autograd here\n"])
def test_a_file_without_torch_imports_only_the_text_report(tmp_path: Path, source: str) -> None:
    (tmp_path / "empty.py").write_text(source)
    modules = imported_modules(["check", "empty.py"], tmp_path)  # the cache is on by default
    assert _under(modules, NEVER_ON_A_PLAIN_CHECK + NOT_FOR_A_FILE_WITHOUT_TORCH) == []
    assert "gradguard.output.text" in modules
    assert not (tmp_path / ".gradguard_cache").exists()
    # No `pyproject.toml` anywhere above: the TOML parser is not needed either.
    assert _under(modules, ("tomllib", "tomli")) == []


def test_the_toml_parser_is_imported_for_a_configuration(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.gradguard]\nignore = ["GG601"]\n')
    (tmp_path / "empty.py").write_text("x = 1\n")
    modules = imported_modules(["check", "empty.py"], tmp_path)
    assert _under(modules, ("tomllib", "tomli")) != []


def test_the_cache_costs_json_and_hashlib_but_no_pool(tmp_path: Path) -> None:
    (tmp_path / "tiny.py").write_text("import torch\n\n\ndef double(x):\n    return x * 2\n")
    modules = imported_modules(["check", "--cache-dir", "cache", "tiny.py"], tmp_path)
    assert {"gradguard.cache", "json", "hashlib"} <= modules
    assert _under(modules, ("multiprocessing", "concurrent", "libcst", "gradguard.lsp")) == []
    assert (tmp_path / "cache" / "CACHEDIR.TAG").is_file()
