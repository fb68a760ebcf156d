"""Local lists a function makes and keeps to itself (`gradguard.analysis.private_lists`), what
they tell about the containers attributes hold (`ModuleInterpreter.container_may_change`),
and the modules a loop over a written-out list of modules binds (`element_of`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.interpreter.module import ModuleInterpreter
from gradguard.analysis.model import ModuleAnalysis
from gradguard.analysis.private_lists import list_building, private_names
from tests.analysis.test_value_facets import fact_at


def _function(source: str) -> ast.FunctionDef:
    tree = ast.parse(textwrap.dedent(source))
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))


PRIVATE = [
    (
        "filled by appends, copied by nn.ModuleList",
        """
        def build(self, widths):
            stages = []
            for w in widths:
                stages.append(Block(w))
            self.stages = nn.ModuleList(stages)
        """,
        {"stages"},
    ),
    (
        "bound in a tuple, grown by +=, unpacked into nn.Sequential, counted, iterated",
        """
        def build(self, n):
            cin, layers = 3, []
            layers += [nn.Linear(cin, 4)]
            for layer in layers:
                print(layer)
            self.body = nn.Sequential(*layers) if len(layers) else None
        """,
        {"layers"},
    ),
    (
        "a comprehension, read by index",
        """
        def build(self):
            blocks = [Block() for _ in range(3)]
            first = blocks[0]
            self.blocks = torch.nn.ModuleList(blocks)
        """,
        {"blocks"},
    ),
]

SHARED = [
    (
        "stored at an attribute",
        """
        def build(self):
            blocks = []
            self.blocks = blocks
            blocks.append(Block())
        """,
    ),
    (
        "returned",
        """
        def build():
            blocks = []
            blocks.append(Block())
            return blocks
        """,
    ),
    (
        "handed to a call that may keep it",
        """
        def build(self):
            blocks = []
            self.register(blocks)
            blocks.append(Block())
        """,
    ),
    (
        "a parameter",
        """
        def build(blocks):
            blocks = blocks or []
            blocks.append(Block())
        """,
    ),
    (
        "bound to something not made here",
        """
        def build(self):
            blocks = self.blocks
            blocks.append(Block())
        """,
    ),
    (
        "read by a nested function",
        """
        def build(self):
            blocks = []
            def add():
                blocks.append(Block())
            add()
        """,
    ),
    (
        "aliased",
        """
        def build(self):
            blocks = []
            kept = blocks
            blocks.append(Block())
        """,
    ),
]


@pytest.mark.parametrize(("label", "source", "private"), PRIVATE, ids=[p[0] for p in PRIVATE])
def test_lists_made_and_kept_here_are_private(label: str, source: str, private: set[str]) -> None:
    assert private_names(_function(source)) >= private


@pytest.mark.parametrize(("label", "source"), SHARED, ids=[s[0] for s in SHARED])
def test_lists_that_may_leave_the_function_are_not(label: str, source: str) -> None:
    assert "blocks" not in private_names(_function(source))


def test_loops_filling_private_lists_run_with_their_assignments() -> None:
    function = _function(
        """
        def __init__(self, widths):
            cin, stages = 3, []
            for w in widths:
                stages.append(Block(cin, w))
                cin = w
            self.stages = nn.ModuleList(stages)
        """
    )
    building = list_building(function)
    assert {type(s).__name__ for s in function.body if id(s) in building} == {"Assign", "For"}
    assert id(function.body[-1]) not in building


@pytest.mark.parametrize(
    "also",
    ["self.stages.append(Block(w))", "setattr(model, 'x', w)", "other.append(w)", "cin.weight = w"],
)
def test_loops_touching_more_than_locals_are_not_run(also: str) -> None:
    function = _function(
        "def __init__(self, widths, other, model):\n"
        "    cin, stages = 3, []\n"
        "    for w in widths:\n"
        "        stages.append(Block(cin, w))\n"
        f"        {also}\n"
        "    self.stages = nn.ModuleList(stages)\n"
    )
    assert not any(
        isinstance(s, ast.For) and id(s) in list_building(function) for s in function.body
    )


def test_a_loop_rebinding_a_name_bound_elsewhere_is_not_run() -> None:
    function = _function(
        """
        def __init__(self, widths):
            stages = []
            with torch.no_grad():
                cin = 3
            for w in widths:
                stages.append(Block(cin, w))
                cin = w
            self.stages = nn.ModuleList(stages)
        """
    )
    assert not list_building(function)


def _may_change(source: str) -> dict[str, bool]:
    tree = ast.parse(textwrap.dedent(source))
    module = ModuleInterpreter(tree, ModuleAnalysis(tree), None)
    reads = {"self.stages", "stages", "self.blocks", "blocks"}
    return {
        ast.unparse(node): module.container_may_change(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute | ast.Name) and ast.unparse(node) in reads
    }


def test_a_private_list_changes_no_attribute_container() -> None:
    found = _may_change(
        """
        class Net(nn.Module):
            def __init__(self):
                stages = []
                stages.append(Block())
                self.stages = nn.ModuleList(stages)
        """
    )
    assert found == {"stages": True, "self.stages": False}


def test_a_list_stored_at_an_attribute_changes_its_container() -> None:
    found = _may_change(
        """
        class Net(nn.Module):
            def __init__(self):
                stages = []
                self.blocks = stages
                stages.append(Block())
                self.stages = nn.ModuleList([Block()])
        """
    )
    assert found["self.blocks"] is True
    assert found["self.stages"] is True  # a shared list of the same name may be it


def test_a_loop_over_listed_modules_binds_one_of_them(monkeypatch: pytest.MonkeyPatch) -> None:
    value = fact_at(
        """
        stem = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
        block = nn.Linear(2, 2)
        for layer in [stem, block]:
            pass  # <- layer
        """,
        monkeypatch,
    )
    assert value.alternatives is not None
    assert [a.module.qualified for a in value.alternatives if a.module] == [
        "torch.nn.Sequential",
        "torch.nn.Linear",
    ]


def test_a_loop_over_like_modules_needs_no_alternatives(monkeypatch: pytest.MonkeyPatch) -> None:
    value = fact_at(
        """
        block = nn.Linear(2, 2)
        for layer in [block, block]:
            pass  # <- layer
        """,
        monkeypatch,
    )
    assert value.alternatives is None
    assert value.module is not None and value.module.qualified == "torch.nn.Linear"
