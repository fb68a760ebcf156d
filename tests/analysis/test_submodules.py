"""What a loop over `model.modules()` (and `named_modules()`, `children()`,
`named_children()`) binds, and what `isinstance(m, C)` keeps of it on each branch
(`gradguard.analysis.submodules`)."""

from __future__ import annotations

import warnings

import pytest
import torch.nn as nn

from gradguard.analysis import submodules
from gradguard.analysis.values import Kind, Value
from tests.analysis.test_value_facets import fact_at

_SEQ = "net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.BatchNorm2d(4))\n"
_LOCAL = """
class Enc(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv1d(1, 2, 3), nn.Conv1d(2, 2, 3)])
        self.act = nn.GELU()
        self.k = 3
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Enc()
        self.fc = nn.Linear(2, 2)
"""


def _classes(value: Value) -> list[str | None]:
    assert value.alternatives is not None
    return [
        (a.module.qualified or a.module.local.node.name if a.module.local else a.module.qualified)
        if a.module is not None
        else None
        for a in value.alternatives
    ]


def test_modules_of_a_sequential_binds_each_module(monkeypatch: pytest.MonkeyPatch) -> None:
    m = fact_at(_SEQ + "for m in net.modules():\n    q = m  # <- q\n", monkeypatch)
    assert m.kind is Kind.MODULE
    assert _classes(m) == [
        "torch.nn.Sequential",
        "torch.nn.Conv2d",
        "torch.nn.BatchNorm2d",
        "torch.nn.ReLU",
        "torch.nn.BatchNorm2d",
    ]


def test_children_leave_out_the_module_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    m = fact_at(_SEQ + "for m in net.children():\n    q = m  # <- q\n", monkeypatch)
    assert "torch.nn.Sequential" not in _classes(m)


def test_isinstance_keeps_the_instances_on_the_true_branch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    m = fact_at(
        _SEQ + "for m in net.modules():\n    if isinstance(m, nn.BatchNorm2d):\n"
        "        q = m  # <- q\n",
        monkeypatch,
    )
    # Both BatchNorm layers hold the int64 counter: the join keeps it.
    assert m.module is not None and m.module.qualified == "torch.nn.BatchNorm2d"
    assert m.module.integer_buffer
    assert _classes(m) == ["torch.nn.BatchNorm2d", "torch.nn.BatchNorm2d"]


def test_not_isinstance_of_a_tuple_keeps_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    m = fact_at(
        _SEQ + "for m in net.modules():\n    if not isinstance(m, (nn.BatchNorm2d, nn.ReLU)):\n"
        "        q = m  # <- q\n",
        monkeypatch,
    )
    assert _classes(m) == ["torch.nn.Sequential", "torch.nn.Conv2d"]


def test_named_modules_of_a_class_handed_in(monkeypatch: pytest.MonkeyPatch) -> None:
    m = fact_at(
        _LOCAL + "def f(n):\n    for name, m in n.named_modules():\n"
        "        if isinstance(m, (nn.Conv1d, nn.Linear)):\n            q = m  # <- q\n"
        "f(Net())\n",
        monkeypatch,
    )
    assert _classes(m) == ["torch.nn.Conv1d", "torch.nn.Conv1d", "torch.nn.Linear"]


def test_isinstance_of_a_class_of_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    m = fact_at(
        _LOCAL + "n = Net()\nfor m in n.modules():\n    if isinstance(m, Enc):\n"
        "        q = m  # <- q\n",
        monkeypatch,
    )
    assert m.module is not None and m.module.local is not None
    assert m.module.local.node.name == "Enc"


@pytest.mark.parametrize(
    "snippet",
    [
        # A module handed in whose structure is not known.
        "def f(n):\n    for m in n.modules():\n        if isinstance(m, nn.BatchNorm2d):\n"
        "            q = m  # <- q\nf(torch.hub.load('a', 'b'))\n",
        # A stored module the analysis does not know: it may be a BatchNorm.
        "class E(nn.Module):\n    def __init__(self, b):\n        super().__init__()\n"
        "        self.b = b\n        self.act = nn.GELU()\n"
        "def f(n):\n    for m in n.children():\n        if isinstance(m, nn.GELU):\n"
        "            q = m  # <- q\nf(E(nn.Linear(2, 2)))\n",
        # The file may give a module another layer.
        _SEQ + "net.head = nn.Linear(2, 2)\nfor m in net.modules():\n"
        "    if isinstance(m, nn.BatchNorm2d):\n        q = m  # <- q\n",
        # A private base class is not decided.
        _SEQ + "for m in net.modules():\n"
        "    if isinstance(m, nn.modules.batchnorm._BatchNorm):\n        q = m  # <- q\n",
        # A container filled later.
        "net = nn.ModuleList()\nnet.append(nn.ReLU())\nfor m in net.modules():\n"
        "    if isinstance(m, nn.ReLU):\n        q = m  # <- q\n",
    ],
)
def test_unknown_structure_stays_unknown(snippet: str, monkeypatch: pytest.MonkeyPatch) -> None:
    m = fact_at(snippet, monkeypatch)
    assert m.module is None or m.module.qualified not in ("torch.nn.BatchNorm2d", "torch.nn.GELU")
    assert m.module is None or not m.module.integer_buffer


def test_leaf_layers_hold_no_module() -> None:
    """`LEAF_LAYERS`, checked by building each with torch 2.13.0."""
    warnings.simplefilter("ignore")
    for name in sorted(submodules.LEAF_LAYERS):
        cls = getattr(nn, name)
        built = None
        for args in [(), (4,), (4, 4), (4, 4, 3), (1, (2, 2))]:
            try:
                built = cls(*args)
                break
            except Exception:
                continue
        assert built is not None, name
        assert not list(built.children()), name


def test_subclass_table_is_torchs() -> None:
    names = sorted(submodules.LEAF_LAYERS | {"Sequential", "ModuleList", "ModuleDict"})
    for a in names:
        for b in names:
            if a != b:
                expected = issubclass(getattr(nn, a), getattr(nn, b))
                assert (submodules.NN_SUBCLASSES.get(a) == b) == expected, (a, b)
