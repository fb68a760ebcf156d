"""The project index API (what the language server will call) on small projects on disk."""

from __future__ import annotations

import ast
import gc
from pathlib import Path

from gradguard.analysis.model import analyse_module
from gradguard.analysis.values import Kind
from gradguard.project.index import ProjectIndex
from gradguard.project.resolve import find_module
from gradguard.project.roots import search_roots

MODEL = """
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)

    def forward(self, x):
        return self.fc(x)
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def imported(index: ProjectIndex, importer: Path, statement: str) -> Kind | None:
    """The kind of value the first name of a `from ... import` statement binds."""
    stmt = ast.parse(statement).body[0]
    assert isinstance(stmt, ast.ImportFrom)
    value = index.imports_for(importer).imported(stmt, stmt.names[0])
    return value.kind if value is not None else None


def test_roots_of_a_script_a_package_and_a_src_layout(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": "", "src/pkg/__init__.py": "", "scripts/run.py": ""})
    assert search_roots(tmp_path / "scripts") == (tmp_path / "scripts", tmp_path, tmp_path / "src")
    assert search_roots(tmp_path / "src" / "pkg") == (tmp_path / "src", tmp_path)


def test_module_names_resolve_to_files(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "setup.cfg": "",
            "train.py": "",
            "space/tools.py": "",  # space/ is a namespace package
            "pkg/__init__.py": "",
            "pkg/a.py": "",
            "pkg/sub/__init__.py": "",
        },
    )
    train = tmp_path / "train.py"
    found = find_module(train, "space.tools", 0)
    assert found is not None and found.file == tmp_path / "space" / "tools.py"
    space = find_module(train, "space", 0)
    assert space is not None and (space.file, space.namespace) == (None, tmp_path / "space")
    relative = find_module(tmp_path / "pkg" / "sub" / "__init__.py", "a", 2)
    assert relative is not None and relative.file == tmp_path / "pkg" / "a.py"
    assert find_module(train, "numpy.linalg", 0) is None


def test_a_class_of_another_file_is_an_nn_module(tmp_path: Path) -> None:
    write(tmp_path, {"model.py": MODEL + "\nUSE_AMP = True\nnet = Net()\n", "train.py": ""})
    index = ProjectIndex()
    train = tmp_path / "train.py"
    assert imported(index, train, "from model import Net") is Kind.CLASS
    assert imported(index, train, "from model import nn") is None  # torch's, not the project's
    assert imported(index, train, "from model import net") is Kind.MODULE
    # The entry script may set `model.USE_AMP = ...` before anything imports it.
    assert imported(index, train, "from model import USE_AMP") is None
    assert imported(index, train, "from model import missing") is None
    # The last question's answer (nothing) rests on model.py too.
    assert set(index.dependencies(train)) == {tmp_path / "model.py"}


def test_update_tells_which_files_facts_changed(tmp_path: Path) -> None:
    write(tmp_path, {"model.py": MODEL, "train.py": "from model import Net\nmodel = Net()\n"})
    index = ProjectIndex()
    train, model = tmp_path / "train.py", tmp_path / "model.py"
    tree = ast.parse(train.read_text())
    analyse_module(tree, train.read_text(), imports=index.imports_for(train))
    assert set(index.dependencies(train)) == {model}
    assert index.update(model, MODEL) == frozenset()  # same text: nothing changed
    assert index.update(model, MODEL.replace("3, 1", "3, 2")) == {model, train}
    assert index.update(tmp_path / "other.py", "x = 1\n") == {tmp_path / "other.py"}


def test_cycles_and_broken_files_are_unknown(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "a.py": "from b import g\n\ndef f():\n    return 1\n",
            "b.py": "from a import f\n\ndef g():\n    return 2\n",
            "broken.py": "def (:\n",
            "c.py": "from a import f\n",
        },
    )
    index = ProjectIndex()
    assert imported(index, tmp_path / "a.py", "from b import g") is None
    assert imported(index, tmp_path / "b.py", "from a import f") is None
    # c.py is outside the cycle: it sees a.py's function.
    assert imported(index, tmp_path / "c.py", "from a import f") is Kind.FUNCTION
    assert imported(index, tmp_path / "c.py", "from broken import f") is None


def test_a_star_import_binds_the_public_or_listed_names(tmp_path: Path) -> None:
    helpers = "import torch\n\ndef public(x):\n    return x\n\ndef _private(x):\n    return x\n"
    listed = helpers + "\n__all__ = ['_private']\n"
    computed = helpers + "\n__all__ = [n for n in dir()]\n"
    write(tmp_path, {"a.py": helpers, "b.py": listed, "c.py": computed, "train.py": ""})
    index = ProjectIndex()
    imports = index.imports_for(tmp_path / "train.py")

    def star(module: str) -> set[str]:
        stmt = ast.parse(f"from {module} import *").body[0]
        assert isinstance(stmt, ast.ImportFrom)
        return set(imports.star(stmt))

    assert star("a") == {"public"}
    assert star("b") == {"_private"}
    assert star("c") == set()


# Facts whose objects sit in sets: a dict carried through two nested loops and returned on
# one path, `{}` on others (the shape of transformers' tied-weights expansion).
TIED = """
def expand(mapping, names, enabled):
    if not enabled:
        return {}
    expanded = {}
    for target, source in mapping.items():
        for name in names:
            if name in expanded:
                expanded[target] = expanded[name]
            else:
                expanded[target] = source
    return expanded


def gather(modules):
    found = {}
    for prefix, module in modules:
        for key, value in expand(module, [prefix], True).items():
            found[prefix + key] = value
    return found
"""


def test_facts_of_one_text_are_equal_in_every_analysis(tmp_path: Path) -> None:
    """A fingerprint depends on the facts, not on the order in which a set of objects
    iterates (by address, different in every analysis): summarising the same text again
    must not tell importers that its facts changed."""
    write(tmp_path, {"tied.py": TIED, "other.py": MODEL})
    for name in ("tied.py", "other.py"):
        prints = set()
        for _ in range(8):
            module = ProjectIndex(track_facts=True).module(tmp_path / name)
            assert module is not None
            prints.add(module.facts)
        assert len(prints) == 1, name


def test_facts_differ_when_what_importers_see_changes(tmp_path: Path) -> None:
    changed = TIED.replace("expanded[target] = source", "expanded[target] = source.detach()")
    write(tmp_path, {"a.py": TIED, "b.py": changed, "c.py": MODEL.replace("(3, 1)", "(3, 2)")})
    index = ProjectIndex(track_facts=True)
    a, b = index.module(tmp_path / "a.py"), index.module(tmp_path / "b.py")
    assert a is not None and b is not None and a.facts != b.facts
    write(tmp_path, {"d.py": MODEL, "e.py": MODEL})
    c, d, e = (index.module(tmp_path / f"{name}.py") for name in "cde")
    assert c is not None and d is not None and e is not None
    assert c.facts != d.facts  # the layer's width is part of the model's facts
    assert d.facts == e.facts  # the same text in another file: the same facts


def _trees() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, ast.Module))


def test_revising_a_summarised_file_keeps_no_other_tree(tmp_path: Path) -> None:
    """Each edit of a summarised file parses and summarises it again to compare facts;
    when they are the same, the old summary stays and nothing of the new analysis may stay
    alive with it (neither the new tree nor answers cached about it)."""
    path = tmp_path / "tied.py"
    write(tmp_path, {"tied.py": TIED})
    index = ProjectIndex(track_facts=True)
    assert index.module(path) is not None
    kept = _trees()
    for edit in range(6):
        assert index.revise(path, TIED + f"\n# edit {edit}\n") == frozenset()  # same facts
        assert index.module(path) is not None
    assert _trees() == kept
