"""What `M.sub.parameters()` yields (`interpreter/training_effects.py`,
`parameters_element`): the parameters of a submodule no name holds are leaves that require
grad, as those of `M.parameters()` are, when the receiver `M.sub` evaluates to a known module
and nothing in the file may have frozen them. In a file that freezes something the items
stay unknown."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.interpreter.statements import FunctionInterpreter
from gradguard.analysis.model import analyse_module
from gradguard.analysis.values import Grad, Kind, Value

PRELUDE = """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        return self.head(self.trunk(x))
"""


def _bound(body: str, name: str, monkeypatch: pytest.MonkeyPatch) -> Value:
    """The value `name` holds after the last statement of `body` last ran."""
    source = PRELUDE + textwrap.dedent(body)
    tree = ast.parse(source)
    last = len(source.rstrip().splitlines())
    seen: list[Value] = []
    run_stmt = FunctionInterpreter.run_stmt

    def recording(self: FunctionInterpreter, stmt: ast.stmt) -> None:
        run_stmt(self, stmt)
        if stmt.lineno == last and self.env is not None and name in self.env:
            seen.append(self.env[name])

    monkeypatch.setattr(FunctionInterpreter, "run_stmt", recording)
    analyse_module(tree, source)
    assert seen, f"`{name}` is not bound on line {last}"
    return seen[-1]


def _leaf_items(value: Value) -> bool:
    items = value.structure.items
    return (
        value.kind is Kind.SEQUENCE
        and items is not None
        and items.kind is Kind.TENSOR
        and items.grad is Grad.TRACKED
        and items.leaf is True
    )


@pytest.mark.parametrize(
    "body",
    [
        "model = Net()\nps = model.trunk.parameters()\n",
        "model = Net()\nps = model.head.parameters()\n",
        "def f():\n    model = Net()\n    ps = model.trunk.parameters()\n",
        "model = Net()\ntrunk = model.trunk\nps = trunk.parameters()\n",
        "model = Net()\nps = model.parameters()\n",
    ],
    ids=["submodule", "layer", "in-function", "named-first", "whole-model"],
)
def test_a_submodule_yields_fresh_parameters(body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _leaf_items(_bound(body, "ps", monkeypatch))


def test_a_loop_over_a_submodule_binds_a_leaf(monkeypatch: pytest.MonkeyPatch) -> None:
    body = "model = Net()\nfor p in model.trunk.parameters():\n    q = p\n"
    value = _bound(body, "q", monkeypatch)
    assert value.kind is Kind.TENSOR and value.grad is Grad.TRACKED and value.leaf is True


@pytest.mark.parametrize(
    "body",
    [
        # Something in the file freezes parameters: these may be among them.
        "model = Net()\nmodel.trunk.requires_grad_(False)\nps = model.trunk.parameters()\n",
        "def g(model):\n    model.requires_grad_(False)\n"
        "def f():\n    model = Net()\n    ps = model.head.parameters()\n",
    ],
    ids=["submodule-frozen", "file-freezes"],
)
def test_parameters_that_may_be_frozen_stay_unknown(
    body: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not _leaf_items(_bound(body, "ps", monkeypatch))
