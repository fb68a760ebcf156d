"""The index a long-running process keeps (`project.live`, `ProjectIndex.revise`): which
edits of one file make other files' facts change, checked with the real engine."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gradguard.core.engine import check_source
from gradguard.project import live
from gradguard.project.live import LiveIndex, imported_files

PROJECTS = Path(__file__).resolve().parent / "projects"
DECORATOR = "@torch.no_grad()\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "gg101_no_grad_helper" / "buggy", root)
    return root


def codes(index: LiveIndex, path: Path) -> list[str]:
    with index.checking(path):
        result = check_source(path.read_text(), path=str(path))
    return [finding.code for finding in result.findings]


def test_only_edits_that_change_what_importers_see_report_them(project: Path) -> None:
    index = LiveIndex()
    train, helper = project / "train.py", (project / "lib" / "losses.py").resolve()
    assert "GG101" in codes(index, train)
    text = helper.read_text()
    # A comment, then a body rewritten to return the same value: train.py is not stale.
    assert index.revise(helper, text + "# note\n") == frozenset()
    rewritten = text.replace("return F.mse_loss", "loss = F.mse_loss") + "    return loss\n"
    assert index.revise(helper, rewritten) == frozenset()
    assert "GG101" in codes(index, train)
    # The decorator removed: train.py's facts changed, and its check no longer reports.
    assert index.revise(helper, rewritten.replace(DECORATOR, "")) == {train.resolve()}
    assert "GG101" not in codes(index, train)
    # Back to the disk's text (the editor closed it): stale again, reported again.
    assert index.revise(helper, None) == {train.resolve()}
    assert "GG101" in codes(index, train)


def test_a_changed_import_graph_makes_every_user_stale(project: Path) -> None:
    index = LiveIndex()
    train, helper = project / "train.py", (project / "lib" / "losses.py").resolve()
    codes(index, train)
    # A new import changes the graph (a cycle may form): every user is stale.
    added = "from train import model\n" + helper.read_text()
    assert index.revise(helper, added) == {train.resolve()}
    assert index.forget_all() == {train.resolve()}


def test_an_unimported_file_costs_no_summary(project: Path) -> None:
    index = LiveIndex()
    train = (project / "train.py").resolve()
    codes(index, train)
    assert index.revise(train, train.read_text() + "x = 1\n") == frozenset()


def test_warming_summarises_the_most_imported_files_within_bounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b, c = tmp_path / "a.py", tmp_path / "b.py", tmp_path / "c.py"
    links = {a: (b, c), b: (c,), c: (c,)}
    assert imported_files(links) == [c, b]  # c twice, b once; a file importing itself: no
    monkeypatch.setattr(live, "WARM_MAX_SUMMARIES", 1)
    assert imported_files(links) == [c]
    big = tmp_path / "big.py"
    big.write_text("from a import x\n" + "#" * live.WARM_MAX_BYTES)
    a.write_text("")
    assert LiveIndex().read(big) == ()  # too large to read ahead of time
    big.write_text("from a import x\n")
    assert LiveIndex().read(big) == (a.resolve(),)
