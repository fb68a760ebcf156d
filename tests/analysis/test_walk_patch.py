"""The module walk and its index by node type, patched after one function changed, equal a
fresh walk and index of the changed module (`gradguard.analysis.walk_patch`)."""

from __future__ import annotations

import ast
import copy
import textwrap

import pytest

from gradguard.analysis import walk as walk_module
from gradguard.analysis.walk_patch import patched_index, patched_walk_runs

_WALK = walk_module._module_walk.__wrapped__  # type: ignore[attr-defined]

BEFORE = textwrap.dedent(
    """
    import torch

    class Net(torch.nn.Module):
        def forward(self, x):
            return self.fc(x)

    def train(model, loader, optimizer):
        for x, y in loader:
            loss = (model(x) - y).pow(2).mean()
            loss.backward()
            optimizer.step()
        return loss.item()

    def evaluate(model, x):
        with torch.no_grad():
            return model(x).argmax(1)
    """
)

# `train` as edited (the same depth of nesting: a patch applies).
EDITS = {
    "a name typed longer": BEFORE.replace("loss = (model(x)", "losss = (model(x)"),
    "a statement added": BEFORE.replace(
        "            optimizer.step()\n",
        "            optimizer.step()\n            optimizer.zero_grad()\n",
    ),
    "a statement removed": BEFORE.replace("            loss.backward()\n", ""),
    "an expression grown": BEFORE.replace(".pow(2).mean()", ".pow(2).mean(dim=0)"),
    "an expression shrunk": BEFORE.replace("return loss.item()", "return loss"),
}


def _index(tree: ast.Module) -> dict[type, list[int]]:
    index: dict[type, list[int]] = {}
    for position, node in enumerate(_WALK(tree)[0]):
        index.setdefault(type(node), []).append(position)
    return index


def _function(tree: ast.Module, name: str) -> ast.FunctionDef:
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)


@pytest.mark.parametrize("edited", EDITS.values(), ids=list(EDITS))
def test_patched_walk_and_index_equal_fresh_ones(edited: str) -> None:
    tree = ast.parse(BEFORE)
    walked, index = _WALK(tree), _index(tree)
    function = _function(tree, "train")
    before = copy.copy(function)  # holds the old children, as a graft's copy does
    now = _function(ast.parse(edited), "train")
    for field in function._fields:
        setattr(function, field, getattr(now, field))
    patched = patched_walk_runs(walked, function, before)
    assert patched is not None
    (nodes, _parents), runs = patched
    fresh = ast.parse(edited)
    assert [type(n) for n in nodes] == [type(n) for n in _WALK(fresh)[0]]
    assert nodes == _WALK(tree)[0]
    assert patched_index(index, nodes, runs) == _index(fresh)


def test_an_edit_keeping_the_number_of_nodes_moves_no_position() -> None:
    tree = ast.parse(BEFORE)
    walked, index = _WALK(tree), _index(tree)
    function = _function(tree, "train")
    before = copy.copy(function)
    now = _function(ast.parse(EDITS["a name typed longer"]), "train")
    for field in function._fields:
        setattr(function, field, getattr(now, field))
    patched = patched_walk_runs(walked, function, before)
    assert patched is not None
    (nodes, _), runs = patched
    assert runs and all(old == new for _, old, new in runs)
    assert patched_index(index, nodes, runs) == index
