"""Which modules a file's freezes can reach (`gradguard.analysis.freeze_reach`).

A file that freezes something made every module computed with in a method unknown: any of
them might be the frozen one. When every freeze names a fresh torch.nn layer through its
attribute (`model.embed`, `self.stem.weight`), a module held at another attribute, built
fresh wherever it is stored, is not one of them: its output in a method requires grad. The
look-alikes keep the question open: freezes of a whole object, of an attribute holding a
class of the file or a module handed in, through a subscript, and `setattr`."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.freeze_reach import frozen_attributes, outside_freezes
from gradguard.analysis.imports import build_scope
from gradguard.analysis.values import Grad
from tests.analysis.test_value_facets import fact_at

CLASSES = """
class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.mix = nn.Sequential(nn.Linear(d, d), nn.Tanh())
        self.norm = nn.LayerNorm(d)

    def forward(self, h):
        mixed = self.mix(h)  # <- mixed
        return self.norm(mixed)


class Net(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.embed = nn.Embedding(10, d)
        self.stem = nn.Linear(d, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(2))

    def forward(self, ids):
        h = self.stem(self.embed(ids))
        for block in self.blocks:
            h = block(h)
        return h
"""


def _reach(freezes: str, extra: str = "") -> frozenset[str] | None:
    source = "import torch\nfrom torch import nn\n" + CLASSES + textwrap.dedent(extra + freezes)
    tree = ast.parse(source)
    return frozen_attributes(tree, build_scope(tree, None).resolve)


REACHED = [
    (
        "a layer frozen by a method call",
        "net = Net(4)\nnet.embed.requires_grad_(False)\n",
        {"embed"},
    ),
    (
        "its parameters frozen in a loop",
        "net = Net(4)\nfor p in net.embed.parameters():\n    p.requires_grad = False\n",
        {"embed"},
    ),
    (
        "a weight frozen names its layer",
        "net = Net(4)\nnet.stem.weight.requires_grad = False\n",
        {"stem"},
    ),
    (
        "two layers, in a helper",
        "def freeze(m):\n    m.embed.requires_grad_(False)\n    m.stem.requires_grad_(False)\n",
        {"embed", "stem"},
    ),
    (
        "a layer of each block",
        "net = Net(4)\nfor b in net.blocks:\n    b.norm.requires_grad_(False)\n",
        {"norm"},
    ),
]

UNREACHED = [
    ("the whole model", "net = Net(4)\nnet.requires_grad_(False)\n"),
    (
        "every parameter of the model",
        "net = Net(4)\nfor p in net.parameters():\n    p.requires_grad = False\n",
    ),
    (
        "an attribute holding classes of the file",
        "net = Net(4)\nnet.blocks.requires_grad_(False)\n",
    ),
    ("through a subscript", "net = Net(4)\nnet.blocks[0].requires_grad_(False)\n"),
    (
        "a frozen name bound to a layer",
        "net = Net(4)\nlayer = net.stem\nlayer.requires_grad_(False)\n",
    ),
    (
        "an attribute also bound to a module handed in",
        "net = Net(4)\nnet.embed.requires_grad_(False)\n",
        "class Wrap(nn.Module):\n"
        "    def __init__(self, inner):\n        super().__init__()\n        self.embed = inner\n",
    ),
    (
        "setattr anywhere",
        "net = Net(4)\nnet.embed.requires_grad_(False)\nsetattr(net, 'stem', nn.Linear(4, 4))\n",
    ),
    (
        "a conditional loop over every named parameter",
        "net = Net(4)\nfor n, p in net.named_parameters():\n    p.requires_grad = 'norm' in n\n",
    ),
]


@pytest.mark.parametrize(
    ("freezes", "names"), [c[1:] for c in REACHED], ids=[c[0] for c in REACHED]
)
def test_freezes_reach_fresh_layers_by_attribute(freezes: str, names: set[str]) -> None:
    assert _reach(freezes) == names


@pytest.mark.parametrize("case", UNREACHED, ids=[c[0] for c in UNREACHED])
def test_freezes_that_may_reach_anything(case: tuple[str, ...]) -> None:
    assert _reach(case[1], case[2] if len(case) > 2 else "") is None


def test_an_attribute_outside_the_freezes() -> None:
    source = "import torch\nfrom torch import nn\n" + CLASSES
    freeze = "net = Net(4)\nnet.embed.requires_grad_(False)\n"
    tree = ast.parse(source + freeze)
    resolve = build_scope(tree, None).resolve
    assert outside_freezes(tree, "mix", resolve)
    assert outside_freezes(tree, "stem", resolve)
    assert not outside_freezes(tree, "embed", resolve)  # the frozen one
    assert not outside_freezes(tree, "blocks", resolve)  # holds classes of the file
    anything = ast.parse(source + "net = Net(4)\nnet.requires_grad_(False)\n")
    assert not outside_freezes(anything, "mix", build_scope(anything, None).resolve)


FREEZES = {
    "a fresh layer frozen by a helper: the block's layers still train": (
        "def freeze(net):\n    for p in net.embed.parameters():\n        p.requires_grad = False\n",
        Grad.TRACKED,
    ),
    "another layer of the block frozen": (
        "def freeze(net):\n    for b in net.blocks:\n        b.norm.requires_grad_(False)\n",
        Grad.TRACKED,
    ),
    "the layer itself frozen": (
        "def freeze(net):\n    for b in net.blocks:\n        b.mix.requires_grad_(False)\n",
        Grad.UNKNOWN,
    ),
    "the whole model frozen": (
        "def freeze(net):\n    net.requires_grad_(False)\n",
        Grad.UNKNOWN,
    ),
    "the blocks frozen": (
        "def freeze(net):\n    net.blocks.requires_grad_(False)\n",
        Grad.UNKNOWN,
    ),
}


@pytest.mark.parametrize("name", list(FREEZES))
def test_a_method_output_beside_the_freezes(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    freezes, grad = FREEZES[name]
    value = fact_at(CLASSES + "\n\n" + freezes + "\nnet = Net(4)\nfreeze(net)\n", monkeypatch)
    assert value.grad is grad
