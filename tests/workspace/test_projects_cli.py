"""`gradguard check` on whole projects: findings resting on facts from other files.

Each test runs the real CLI (`python -m gradguard`, this worktree's code through the
inherited PYTHONPATH) on a copy of a fixture project and reads its JSON report.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from projects import CASES, PROJECTS, Project

from gradguard.core.engine import check_source


def gradguard(cwd: Path, *args: str) -> tuple[int, list[dict[str, object]], str]:
    """Run `gradguard check --output-format json ARGS` in `cwd`: exit code, findings, stderr."""
    proc = subprocess.run(
        [sys.executable, "-m", "gradguard", "check", "--output-format", "json", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    return proc.returncode, json.loads(proc.stdout or "[]"), proc.stderr


def copy(source: Path, target: Path) -> Path:
    """A private copy of a fixture folder (the tests may change it)."""
    shutil.copytree(source, target)
    return target


def located(findings: list[dict[str, object]]) -> set[tuple[str, object]]:
    return {(str(f["filename"]), f["code"]) for f in findings}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_buggy_project_is_reported_in_the_file_that_fails(case: Project, tmp_path: Path) -> None:
    project = copy(case.folder("buggy"), tmp_path / "p")
    code, findings, stderr = gradguard(project, "--no-cache", ".")
    assert located(findings) == {(case.reported, case.code)}, (findings, stderr)
    assert code == 1


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_fixed_project_is_silent(case: Project, tmp_path: Path) -> None:
    project = copy(case.folder("fixed"), tmp_path / "p")
    code, findings, stderr = gradguard(project, "--no-cache", ".")
    assert (code, findings) == (0, []), stderr


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_file_alone_says_nothing(case: Project) -> None:
    """Without the project the fact is unknown: the finding truly rests on another file."""
    path = case.folder("buggy") / case.reported
    result = check_source(path.read_text(encoding="utf-8"), path=str(path))
    assert case.code not in {f.code for f in result.findings}


_NON_SCALAR_BACKWARD = """
import torch

weights = torch.ones(2, requires_grad=True)
(weights * 2).backward()
"""


def test_only_the_given_files_are_reported(tmp_path: Path) -> None:
    """The helper files are summarised, never reported, when only the script is checked."""
    case = next(c for c in CASES if c.code == "GG103")
    project = copy(case.folder("buggy"), tmp_path / "p")
    # Make the helper file itself reportable, to see that it is not reported.
    helper = project / case.elsewhere
    helper.write_text(helper.read_text() + _NON_SCALAR_BACKWARD)
    _, findings, _ = gradguard(project, "--no-cache", case.reported)
    assert located(findings) == {(case.reported, case.code)}
    _, everything, _ = gradguard(project, "--no-cache", ".")
    assert (case.elsewhere, "GG501") in located(everything)


def test_negatives_are_silent(tmp_path: Path) -> None:
    """An import cycle, a self-import, the same name in two packages, a rebound or redefined
    name, an installed package named like a project file, a star import, a module object."""
    project = copy(PROJECTS / "negatives", tmp_path / "n")
    code, findings, stderr = gradguard(project, "--no-cache", ".")
    assert (code, findings) == (0, []), stderr


def test_the_look_alike_package_would_be_reported(tmp_path: Path) -> None:
    """Control for the negative: importing pkg_a's no_grad loss_fn is reported."""
    project = copy(PROJECTS / "negatives" / "lookalikes", tmp_path / "n")
    script = project / "same_name.py"
    script.write_text(script.read_text().replace("pkg_b.losses", "pkg_a.losses"))
    _, findings, _ = gradguard(project, "--no-cache", "same_name.py")
    assert located(findings) == {("same_name.py", "GG101")}


def test_the_cycle_is_what_keeps_it_silent(tmp_path: Path) -> None:
    """Control for the negative: without the import back into trainer.py it is reported."""
    project = copy(PROJECTS / "negatives" / "cycle", tmp_path / "c")
    losses = project / "losses.py"
    text = losses.read_text().replace("from trainer import make_model\n", "")
    losses.write_text(text.replace("    return make_model()", "    return None"))
    _, findings, _ = gradguard(project, "--no-cache", "trainer.py")
    assert located(findings) == {("trainer.py", "GG101")}


def test_a_warm_cache_follows_the_other_file(tmp_path: Path) -> None:
    """The cached result of trainer/loop.py rests on trainer/metrics.py: changing that file
    (and only that file) changes the report."""
    case = next(c for c in CASES if c.code == "GG102")
    project = copy(case.folder("fixed"), tmp_path / "p")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert gradguard(project, *cache, ".")[:2] == (0, [])
    assert gradguard(project, *cache, ".")[:2] == (0, [])  # warm
    shutil.copyfile(case.folder("buggy") / case.elsewhere, project / case.elsewhere)
    _, findings, _ = gradguard(project, *cache, ".")
    assert located(findings) == {(case.reported, case.code)}
    shutil.copyfile(case.folder("fixed") / case.elsewhere, project / case.elsewhere)
    assert gradguard(project, *cache, ".")[:2] == (0, [])


def test_a_warm_cache_follows_a_file_created_for_an_import(tmp_path: Path) -> None:
    """Checked while `lib/losses.py` is missing, the script's import is unknown; creating
    the file makes the cached result stale, and the report follows it."""
    case = next(c for c in CASES if c.code == "GG101")
    project = copy(case.folder("buggy"), tmp_path / "p")
    helper = project / case.elsewhere
    text = helper.read_text(encoding="utf-8")
    helper.unlink()
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert gradguard(project, *cache, case.reported)[:2] == (0, [])
    assert gradguard(project, *cache, case.reported)[:2] == (0, [])  # warm
    helper.write_text(text, encoding="utf-8")
    _, findings, _ = gradguard(project, *cache, case.reported)
    assert located(findings) == {(case.reported, case.code)}


def test_jobs_do_not_change_the_report(tmp_path: Path) -> None:
    root = tmp_path / "all"
    for case in CASES:
        copy(case.folder("buggy"), root / case.name)
    copy(PROJECTS / "negatives", root / "negatives")
    one = gradguard(root, "--no-cache", "--jobs", "1", ".")
    two = gradguard(root, "--no-cache", "--jobs", "2", ".")
    assert one == two
    assert len(one[1]) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_fixes_only_edit_the_reported_file(case: Project, tmp_path: Path) -> None:
    """A fix built from another file's code would edit the wrong lines: none is offered
    unless it edits the reported file, where the finding is."""
    project = copy(case.folder("buggy"), tmp_path / "p")
    proc = subprocess.run(
        [sys.executable, "-m", "gradguard", "check", "--no-cache", "--diff", "--unsafe-fixes", "."],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    edited = {line[4:].strip() for line in proc.stdout.splitlines() if line.startswith("+++ ")}
    assert edited <= {case.reported}, proc.stdout


def test_one_star_import_is_followed(tmp_path: Path) -> None:
    """Control for the two-star negative: with only pkg_a's star import it is reported."""
    project = copy(PROJECTS / "negatives" / "lookalikes", tmp_path / "n")
    script = project / "star.py"
    script.write_text(script.read_text().replace("from pkg_b.losses import *  # noqa: F403\n", ""))
    _, findings, _ = gradguard(project, "--no-cache", "star.py")
    assert located(findings) == {("star.py", "GG101")}


def test_warnings_in_another_file_are_not_printed_and_lose_no_fact(tmp_path: Path) -> None:
    """A project file with an invalid escape sequence (a SyntaxWarning or DeprecationWarning
    when parsed) is still summarised under `-W error`, and nothing is printed about it."""
    project = copy(PROJECTS / "gg201_rnn_state" / "buggy", tmp_path / "p")
    model = next(p for p in project.rglob("*.py") if "class" in p.read_text(encoding="utf-8"))
    model.write_text(
        'PATTERN = "\\d+ steps"\n' + model.read_text(encoding="utf-8"), encoding="utf-8"
    )
    proc = subprocess.run(
        [sys.executable, "-W", "error", "-m", "gradguard", "check", "--no-cache", "."],
        cwd=project,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "GG201" in proc.stdout
    assert "Warning" not in proc.stderr
