"""Start-up cost: `gradguard check` must not import what the run does not use, through
`python -m gradguard` and through the `gradguard` console script.

Structural, not timed: `python -X importtime` and `sys.modules` list every module a process
imported.
"""

from __future__ import annotations

import os
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


# -- the console script ----------------------------------------------------------------------
# The console script runs `from gradguard.cli import main; main()`, without
# `gradguard.__main__` (which the tests above go through). Each test below runs a fresh
# interpreter that does the same, then lists `sys.modules`.

# Imported by `main` and listed when it returns (`main` is called, not run as a script, so
# its exit code is printed too).
_CHECK_AND_LIST = """
import sys
from gradguard.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
print()
print("EXIT", code)
print("MODULES", " ".join(sorted(sys.modules)))
"""

# Never on a plain text report: the language server, fixes' libcst (for a file without
# findings), the other output formats.
NOT_FOR_TEXT = (
    "pygls",
    "lsprotocol",
    "libcst",
    "gradguard.lsp",
    "gradguard.output.sarif",
    "gradguard.output.json",
    "gradguard.output.github",
)

# Nor, for a file without torch, the analysis (the file is skipped before parsing), the
# worker pool, the cache, the findings data model or the line table (no findings).
HEAVY = (
    *NOT_FOR_TEXT,
    "gradguard.analysis",
    "gradguard.rules",
    "gradguard.core.engine",
    "gradguard.project",
    "gradguard.parallel",
    "gradguard.cache",
    "gradguard.core.findings",
    "gradguard.core.text",
)

# Standard-library modules that path does not need either (a few ms each at start-up):
# typing (annotations only), tomllib (no pyproject.toml), unicodedata (no code frame),
# logging and hashlib (nothing logged, nothing hashed), json, subprocess, shutil.
NOT_NEEDED = (
    "typing",
    "tomllib",
    "tomli",
    "unicodedata",
    "logging",
    "hashlib",
    "json",
    "subprocess",
    "shutil",
    "concurrent",
    "multiprocessing",
)


def check_and_list(args: list[str], cwd: Path) -> tuple[int, str, set[str]]:
    """Run `main(["check", *args])` in a fresh interpreter in `cwd`: exit code, report, modules."""
    env = {k: v for k, v in os.environ.items() if k not in ("GRADGUARD_NO_CACHE", "NO_COLOR")}
    proc = subprocess.run(
        [sys.executable, "-c", _CHECK_AND_LIST, "check", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    report, _, listing = proc.stdout.rpartition("\nEXIT ")
    code, _, modules = listing.partition("\nMODULES ")
    return int(code), report, set(modules.split())


@pytest.mark.parametrize("cache", [["--no-cache"], []], ids=["no-cache", "cache"])
@pytest.mark.parametrize("source", ["", "x = 1\n", '"""Mentions no deep learning library."""\n'])
def test_the_console_script_on_a_file_without_torch_imports_only_the_text_report(
    tmp_path: Path, source: str, cache: list[str]
) -> None:
    (tmp_path / "empty.py").write_text(source)
    code, report, modules = check_and_list([*cache, "empty.py"], tmp_path)
    assert (code, report.strip()) == (0, "All checks passed!")
    assert _under(modules, HEAVY) == []
    assert _under(modules, NOT_NEEDED) == []
    # What the path does use, so the lists above cannot pass because nothing ran.
    assert {"gradguard.cli", "gradguard.file_check", "gradguard.output.text"} <= modules


def test_the_guard_sees_a_file_that_is_analysed(tmp_path: Path) -> None:
    """The same run on a file that mentions torch does import the analysis: the module
    listing is that of the run, not of an interpreter that stopped early."""
    (tmp_path / "model.py").write_text("import torch\n\n\ndef double(x):\n    return x * 2\n")
    code, report, modules = check_and_list(["--no-cache", "model.py"], tmp_path)
    assert (code, report.strip()) == (0, "All checks passed!")
    assert {"gradguard.core.engine", "gradguard.analysis", "gradguard.rules"} <= modules
    # Still no server, no fix machinery, no other format, nothing logged or hashed: the
    # file imports no other project file, so no content key is computed.
    assert _under(modules, NOT_FOR_TEXT) == []
    assert _under(modules, ("logging", "hashlib", "traceback", "json")) == []


def test_a_finding_imports_only_what_its_report_needs(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(
        "import torch\n"
        "from torch import nn\n\n"
        "model = nn.Linear(4, 1)\n"
        "x = torch.randn(8, 4)\n"
        "with torch.no_grad():\n"
        "    loss = model(x).sum()\n"
        "loss.backward()\n"
    )
    code, report, modules = check_and_list(["--no-cache", "train.py"], tmp_path)
    assert code == 1 and "GG101" in report
    assert "unicodedata" in modules  # the code frame measures display widths
    # (libcst may be loaded here: the report says whether the fix applies, so it is built.)
    assert _under(modules, ("pygls", "lsprotocol", "gradguard.lsp", "logging")) == []
    assert _under(modules, ("gradguard.output.json", "gradguard.output.sarif")) == []


def test_a_cache_hit_loads_the_cache_but_not_the_analysis(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text("import torch\n\n\ndef double(x):\n    return x * 2\n")
    first = check_and_list(["--cache-dir", "cache", "model.py"], tmp_path)
    assert "gradguard.analysis" in first[2]  # a miss: analysed, then stored
    code, report, modules = check_and_list(["--cache-dir", "cache", "model.py"], tmp_path)
    assert (code, report.strip()) == (0, "All checks passed!")
    assert {"gradguard.cache", "json", "hashlib"} <= modules
    assert _under(modules, ("gradguard.analysis", "gradguard.rules", "gradguard.core.engine")) == []
    assert _under(modules, ("typing", "logging", "gradguard.parallel", "concurrent")) == []
