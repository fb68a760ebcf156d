"""In-place changes through a layer or a function (GG301, GG302): `nn.ReLU(inplace=True)`
called on a tensor, `F.relu(w, inplace=True)`, `torch.relu_(w)` and an `nn.Sequential`
starting with an in-place layer change their first argument as `w.relu_()` does. Each
snippet states which leaves that require grad are changed with recording on (what GG301
reports), or whether a kept tensor is changed before the backward (GG302); every buggy
snippet was checked to raise under torch 2.13.0 and every look-alike to run."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import InPlaceChange
from gradguard.analysis.model import ModuleAnalysis, analyse_module
from gradguard.analysis.values import Grad
from tests.analysis.test_value_facets import fact_at

PRELUDE = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n"


def _analysis(body: str) -> ModuleAnalysis:
    source = PRELUDE + textwrap.dedent(body)
    return analyse_module(ast.parse(source), source)


def _leaves_changed(body: str) -> list[str]:
    """The leaves requiring grad changed in place with recording on, as the source names
    them (what GG301 reads)."""
    return [
        ast.unparse(change.target)
        for change in _analysis(body).events.of(InPlaceChange)
        if change.value.grad is Grad.TRACKED and change.value.leaf and change.grad_enabled
    ]


@pytest.mark.parametrize(
    ("body", "changed"),
    [
        # The functional forms, as `w.relu_()`.
        ("F.relu(w, inplace=True)\n", ["w"]),
        ("torch.relu_(w)\n", ["w"]),
        ("F.leaky_relu_(w, 0.1)\n", ["w"]),
        ("torch.sigmoid_(w)\n", ["w"]),
        # A layer built with inplace=True, and a Sequential starting with one.
        ("relu = nn.ReLU(inplace=True)\nrelu(w)\n", ["w"]),
        ("drop = nn.Dropout(0.5, inplace=True)\ndrop(w)\n", ["w"]),
        ("block = nn.Sequential(nn.ReLU(inplace=True), nn.Linear(3, 3))\nblock(w)\n", ["w"]),
        # Look-alikes: a copy, an out-of-place form, recording off.
        ("F.relu(w.clone(), inplace=True)\n", []),
        ("F.relu(w, inplace=False)\ntorch.relu(w)\n", []),
        ("relu = nn.ReLU(inplace=True)\nrelu(w.clone())\n", []),
        ("relu = nn.ReLU()\nrelu(w)\n", []),
        ("with torch.no_grad():\n    torch.relu_(w)\n    nn.ReLU(inplace=True)(w)\n", []),
        # A parameter that does not require grad; a tensor with history (no leaf).
        ("p = nn.Parameter(torch.ones(3), requires_grad=False)\nF.relu(p, inplace=True)\n", []),
        ("h = w * 2\nF.relu(h, inplace=True)\nnn.ReLU(inplace=True)(h)\n", []),
        # A Sequential whose first layer works out of place.
        ("block = nn.Sequential(nn.Linear(3, 3), nn.ReLU(inplace=True))\nblock(w)\n", []),
        # Functions ending in "_" that autograd does not record on their first argument.
        ("nn.init.uniform_(w)\ntorch.nn.utils.clip_grad_norm_(w, 1.0)\n", []),
        # A flag that may be False.
        ("def make(flag):\n    return nn.ReLU(inplace=flag)\nmake(False)(w)\n", []),
    ],
)
def test_leaf_changed_through_a_call(body: str, changed: list[str]) -> None:
    assert _leaves_changed("w = torch.randn(3, requires_grad=True)\n" + body) == changed


def test_dropout_changes_nothing_in_evaluation() -> None:
    """In evaluation mode dropout returns its input untouched: nothing is changed."""
    body = """
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(3))
            self.drop = nn.Dropout(0.5, inplace=True)

        def forward(self):
            return self.drop(self.w)

    net = Net()
    net.eval()
    net()
    """
    assert _leaves_changed(body) == []


def test_layer_of_a_module_changes_a_parameter() -> None:
    """`self.relu(self.w)` in forward, `self.relu = nn.ReLU(inplace=True)`: the parameter."""
    body = """
    class Fuse(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(2))
            self.relu = nn.ReLU(inplace=True)

        def forward(self, x):
            return self.relu(self.w).sum() * x

    Fuse()(torch.randn(3)).sum().backward()
    """
    assert _leaves_changed(body) == ["self.w"]


@pytest.mark.parametrize(
    ("block", "modified"),
    [
        # The block's first layer changes what sigmoid kept (its result).
        ("nn.Sequential(nn.ReLU(inplace=True), nn.Linear(4, 4))", True),
        ("nn.Sequential(nn.Dropout(0.2, inplace=True), nn.Linear(4, 4))", True),
        ("nn.Sequential(nn.Sequential(nn.ReLU(inplace=True)), nn.Linear(4, 4))", True),
        # Out of place first: nothing kept is changed.
        ("nn.Sequential(nn.ReLU(), nn.Linear(4, 4))", False),
        ("nn.Sequential(nn.Linear(4, 4), nn.ReLU(inplace=True))", False),
    ],
)
def test_sequential_changes_its_input(block: str, modified: bool) -> None:
    body = f"""
    layer = nn.Linear(4, 4)
    block = {block}
    h = torch.sigmoid(layer(torch.randn(2, 4)))
    out = block(h)
    (out.sum() + h.sum()).backward()
    """
    assert bool(_analysis(body).backward_calls[-1].through_modified) is modified


@pytest.mark.parametrize(
    ("built", "changes"),
    [
        ("nn.Sequential(nn.ReLU(inplace=True), nn.Linear(2, 2))", "torch.nn.ReLU"),
        ("nn.Sequential(nn.ReLU(), nn.Linear(2, 2))", None),
        ("nn.Sequential(nn.Linear(2, 2), nn.ReLU(inplace=True))", None),
        ("nn.ReLU(inplace=True)", "torch.nn.ReLU"),
        ("nn.ReLU(inplace=False)", None),
    ],
)
def test_module_changes_input(
    built: str, changes: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(f"net = {built}  # <- net\n", monkeypatch)
    assert value.module is not None
    assert value.module.changes_input == changes
