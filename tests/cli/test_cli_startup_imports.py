"""Start-up of the `gradguard` console script: what a check imports, by the file it checks.

The console script runs `from gradguard.cli import main; main()`, without `gradguard.__main__`
(which `test_cli_startup.py` goes through). Each test runs a fresh interpreter that does the
same, then lists `sys.modules`: a behavioural guard on what each path imports, not a timing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def _under(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.mark.parametrize("cache", [["--no-cache"], []], ids=["no-cache", "cache"])
@pytest.mark.parametrize("source", ["", "x = 1\n", '"""Mentions no deep learning library."""\n'])
def test_a_file_without_torch_imports_only_the_text_report(
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
