"""The pre-commit hooks of `.pre-commit-hooks.yaml`, run by the real `pre-commit` in a
temporary git repository, offline.

`language: python` hooks make pre-commit build a virtualenv and pip-install this repository
into it, which needs the package index. The tests therefore validate the manifest with
pre-commit's own schema, then run each hook exactly as the manifest defines it (id, entry
and its arguments, `types_or`, `require_serial`) from a `repo: local` configuration with
`language: system`, using the `gradguard` installed next to the running interpreter.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pre_commit = pytest.importorskip("pre_commit", reason="pre-commit is a test dependency")
yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
BIN = Path(sys.executable).parent

BUGGY = """\
import torch
from torch import nn

rnn = nn.RNNCell(4, 8)
opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
h = torch.zeros(1, 8)
for step in range(5):
    h_next = rnn(torch.randn(1, 4), h)
    loss = h_next.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    h = h_next
"""
FIXED = BUGGY.replace("h = h_next\n", "h = h_next.detach()\n")


def manifest() -> list[dict[str, Any]]:
    from pre_commit.clientlib import load_manifest

    hooks: list[dict[str, Any]] = load_manifest(str(MANIFEST))  # validates against the schema
    return hooks


def test_the_manifest_defines_both_hooks_for_python_and_notebooks() -> None:
    hooks = {hook["id"]: hook for hook in manifest()}
    assert set(hooks) == {"gradguard", "gradguard-fix"}
    assert hooks["gradguard"]["entry"] == "gradguard check"
    assert hooks["gradguard-fix"]["entry"] == "gradguard check --fix"
    for hook in hooks.values():
        assert hook["types_or"] == ["python", "jupyter"]
        assert hook["language"] == "python"


def local_config(hook_id: str) -> str:
    """A `repo: local` configuration running hook `hook_id` as the manifest defines it."""
    [hook] = [h for h in yaml.safe_load(MANIFEST.read_text(encoding="utf-8")) if h["id"] == hook_id]
    command, *args = hook["entry"].split()
    local = {
        **hook,
        "entry": str(BIN / command),
        "args": args,
        "language": "system",
    }
    return yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]})


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    executable = shutil.which("git")
    assert executable is not None, "git is needed for the pre-commit tests"
    return subprocess.run(
        [executable, *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=check,
        timeout=300,
        env=environment(repo),
    )


def environment(repo: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(
        {
            "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home"),
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.invalid",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.invalid",
            "GRADGUARD_NO_CACHE": "1",
            "NO_COLOR": "1",
            # The package under test, as the tests themselves import it.
            "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
        }
    )
    return env


def repository(tmp_path: Path, hook_id: str) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(local_config(hook_id), encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"],
        cwd=repo,
        check=True,
        capture_output=True,
        env=environment(repo),
        timeout=300,
    )
    git(repo, "add", ".pre-commit-config.yaml")
    git(repo, "commit", "-q", "-m", "config")
    return repo


def notebook(source: str) -> str:
    cell = {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {},
        "outputs": [],
        "source": source.splitlines(keepends=True),
    }
    document = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(document, indent=1) + "\n"


def test_a_commit_with_a_buggy_file_fails_with_the_code(tmp_path: Path) -> None:
    repo = repository(tmp_path, "gradguard")
    (repo / "train.py").write_text(BUGGY, encoding="utf-8")
    (repo / "notes.txt").write_text("not python\n", encoding="utf-8")
    git(repo, "add", "train.py", "notes.txt")
    done = git(repo, "commit", "-m", "train", check=False)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "train.py:13:5: GG201" in output
    assert "notes.txt" not in output.split("gradguard", 1)[-1]
    assert git(repo, "log", "--format=%s").stdout.split() == ["config"]


def test_a_notebook_is_checked_too(tmp_path: Path) -> None:
    repo = repository(tmp_path, "gradguard")
    (repo / "train.ipynb").write_text(notebook(BUGGY), encoding="utf-8")
    git(repo, "add", "train.ipynb")
    done = git(repo, "commit", "-m", "nb", check=False)
    assert done.returncode != 0
    assert "train.ipynb:cell 1:13:5: GG201" in done.stdout + done.stderr


def test_the_fix_hook_repairs_the_file_and_the_next_commit_passes(tmp_path: Path) -> None:
    repo = repository(tmp_path, "gradguard-fix")
    (repo / "train.py").write_text(BUGGY, encoding="utf-8")
    (repo / "train.ipynb").write_text(notebook(BUGGY), encoding="utf-8")
    git(repo, "add", "train.py", "train.ipynb")
    first = git(repo, "commit", "-m", "train", check=False)
    assert first.returncode != 0  # pre-commit fails a hook that modified files
    assert "files were modified by this hook" in first.stdout + first.stderr
    assert (repo / "train.py").read_text(encoding="utf-8") == FIXED
    assert (repo / "train.ipynb").read_text(encoding="utf-8") == notebook(FIXED)
    git(repo, "add", "train.py", "train.ipynb")
    second = git(repo, "commit", "-m", "train", check=False)
    assert second.returncode == 0, second.stdout + second.stderr
    assert git(repo, "log", "--format=%s").stdout.split() == ["train", "config"]
