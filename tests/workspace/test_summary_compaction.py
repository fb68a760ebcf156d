"""A summary the project index keeps is compacted (`ModuleInterpreter.release_after_summary`,
`SourceFile.forget_text`, outlines of the import graph without text): what importers read
of it must be what the full summary said. Each test compares a compacted index with one
whose summaries are kept whole (the compaction steps replaced by no-ops)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from projects import CASES

from gradguard.analysis.interpreter.module import ModuleInterpreter
from gradguard.core.engine import check_source
from gradguard.project import session
from gradguard.project.index import ForeignModule, ProjectIndex, SourceFile

# A module whose summary has everything an importer reads: module-level objects, classes
# (nested, with bases of the file and of torch, owning or not owning their parameters),
# functions with summaries, and names its classes resolve through scopes.
MODULE = """
import torch
from torch import nn

WIDTH = 8


def make_head(n):
    return nn.Linear(n, 1)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(WIDTH, WIDTH)

    def forward(self, x):
        return torch.relu(self.fc(x))


class Borrowing(nn.Module):
    def __init__(self, shared):
        super().__init__()
        self.shared = shared

    def forward(self, x):
        return self.shared(x)


def factory():
    class Inner(Block):
        def forward(self, x):
            with torch.no_grad():
                return self.fc(x)

    return Inner()


@torch.no_grad()
def frozen_loss(model, x):
    return model(x).sum()


block = Block()
"""


def _summarise(path: Path) -> ForeignModule:
    module = ProjectIndex(track_facts=True).module(path)
    assert module is not None
    return module


def _verdicts(module: ForeignModule) -> dict[tuple[str, int], tuple[bool, bool, bool]]:
    """Per class (name, line): is it a module, a Lightning one, does it own its parameters."""
    interpreter = module.interpreter
    return {
        (info.node.name, info.node.lineno): (
            info.is_module,
            info.lightning,
            interpreter.class_check.self_contained(info),
        )
        for info in interpreter.classes.values()
    }


def _summaries(module: ForeignModule) -> list[tuple[str, int, str, str]]:
    """Per function (name, line): the kind and grad of what it returns, its state reads."""
    interpreter = module.interpreter
    return sorted(
        (
            node.name,
            node.lineno,
            f"{summary.returned.kind}/{summary.returned.grad}",
            ",".join(sorted(summary.state_reads)),
        )
        for node in ast.walk(interpreter.tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (summary := interpreter.summaries.get(id(node))) is not None
    )


def _globals(module: ForeignModule) -> dict[str, str]:
    """Module-level names and the kind of value each binds."""
    return {name: str(value.kind) for name, value in module.interpreter.globals.items()}


def _resolved_bases(module: ForeignModule) -> list[str | None]:
    """Every class base as the scopes of its file resolve it (what class checks read)."""
    interpreter = module.interpreter
    return [
        interpreter.scope_of(interpreter.parent_scope.get(id(node), interpreter.tree)).resolve(base)
        for node in ast.walk(interpreter.tree)
        if isinstance(node, ast.ClassDef)
        for base in node.bases
    ]


def test_a_compacted_summary_answers_as_the_full_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "models.py"
    path.write_text(MODULE)
    compact = _summarise(path)
    with monkeypatch.context() as patched:
        patched.setattr(ModuleInterpreter, "release_after_summary", lambda self: None)
        patched.setattr(SourceFile, "forget_text", lambda self: None)
        whole = _summarise(path)
    # The compaction happened (else this test compares two equal things).
    assert compact.interpreter.text is None and whole.interpreter.text == MODULE
    assert not compact.interpreter.call_sites.log and whole.interpreter.call_sites.log
    assert len(compact.interpreter.scopes) < len(whole.interpreter.scopes)
    # What importers read: globals, function summaries, class infos and their verdicts,
    # names resolved in the file's scopes. (Fingerprints of two builds are not compared:
    # their numbering of shared objects follows the iteration order of sets.)
    assert _summaries(compact) == _summaries(whole)
    assert _globals(compact) == _globals(whole)
    assert _verdicts(compact) == _verdicts(whole)
    assert (True, False, False) in _verdicts(whole).values()  # `Borrowing` owns nothing
    assert _resolved_bases(compact) == _resolved_bases(whole)


def _findings(index: ProjectIndex, folder: Path) -> list[tuple[str, int, str]]:
    found = []
    for path in sorted(folder.rglob("*.py")):
        text = path.read_text()
        with session.checking(path, index):
            result = check_source(text, path=str(path))
        rows = [
            (str(path.relative_to(folder)), f.range.start.line, f.code) for f in result.findings
        ]
        found.extend(rows)
    return found


def _fixture_findings() -> list[tuple[str, int, str]]:
    found = []
    for case in CASES:
        for variant in ("buggy", "fixed"):
            index = ProjectIndex(track_facts=True)
            found.extend((case.name, *row) for row in _findings(index, case.folder(variant)))
    return found


def test_fixture_projects_find_the_same_with_whole_summaries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compact = _fixture_findings()
    with monkeypatch.context() as patched:
        patched.setattr(ModuleInterpreter, "release_after_summary", lambda self: None)
        patched.setattr(SourceFile, "forget_text", lambda self: None)
        whole = _fixture_findings()
    assert compact == whole
    # Every project's cross-file bug is among them (the facts did cross files).
    for case in CASES:
        assert any(row[0] == case.name and row[3] == case.code for row in compact), case.name


def test_the_import_graph_keeps_no_text(tmp_path: Path) -> None:
    """Deciding import cycles reads the files of the graph for their imports only."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "a.py").write_text("from b import f\n")
    (tmp_path / "b.py").write_text("from c import g\n\ndef f():\n    return g()\n")
    (tmp_path / "c.py").write_text("def g():\n    return 1\n" + "# filler\n" * 100)
    index = ProjectIndex()
    a, c = (tmp_path / name for name in ("a.py", "c.py"))
    assert not index.cyclic(a.resolve(), c.resolve())
    assert index.links_of(a.resolve()) == ((tmp_path / "b.py").resolve(),)
    assert not [path for path, source in index._sources.items() if source and source.text]
