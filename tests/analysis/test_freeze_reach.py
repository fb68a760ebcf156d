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
    (
        "a helper freezing its parameter, handed layers by attribute",
        "def set_grad(net, flag):\n    for p in net.parameters():\n        p.requires_grad = flag\n"
        "net = Net(4)\nset_grad(net.embed, False)\nset_grad(net.embed, True)\n",
        {"embed"},
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
        "a helper freezing its parameter, handed a whole model",
        "def set_grad(net, flag):\n    for p in net.parameters():\n        p.requires_grad = flag\n"
        "net = Net(4)\nset_grad(net, False)\n",
    ),
    (
        "a helper freezing its parameter, itself handed on",
        "def set_grad(net, flag):\n    for p in net.parameters():\n        p.requires_grad = flag\n"
        "net = Net(4)\nset_grad(net.embed, False)\nhooks = [set_grad]\n",
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


# A trainer object (a plain class) keeping a fresh layer to itself: no freeze of a whole
# object reaches it, whatever that object is (`gradguard.analysis.enclosed_layers`).
TRAINER = """
import itertools
import torch
from torch import nn


class Trainer:
    def __init__(self, encoder, d):
        self.encoder = encoder
        self.head = nn.Linear(d, 2).to("cpu")
        self.opt = torch.optim.SGD({uses}, lr=0.1)

    def step(self, x):
        self.head.train()
        return self.head(self.encoder(x))
{extra}

def main(d):
    encoder = nn.Linear(d, d)
    for p in encoder.parameters():
        p.requires_grad = False
    return Trainer(encoder, d)
"""

ENCLOSED = {
    "its parameters handed to the optimizer": ("self.head.parameters()", ""),
    "in a parameter group": ('[{"params": self.head.parameters()}]', ""),
    "chained with another module's": (
        "itertools.chain(self.head.parameters(), encoder.parameters())",
        "",
    ),
    "read by a method keeping it": (
        "list(self.head.parameters())",
        "\n    def reset(self):\n        self.head.zero_grad()\n        self.head.eval()\n",
    ),
}

OPEN = {
    "a base class": ("self.head.parameters()", "", "class Trainer(Base):"),
    "a module itself": ("self.head.parameters()", "", "class Trainer(nn.Module):"),
    "the layer handed out": (
        "self.head.parameters()",
        "\n    def layer(self):\n        return self.head\n",
        "",
    ),
    "its weight read": (
        "self.head.parameters()",
        "\n    def freeze(self):\n        self.head.weight.requires_grad = False\n",
        "",
    ),
    "frozen by name": (
        "self.head.parameters()",
        "\n    def freeze(self):\n        self.head.requires_grad_(False)\n",
        "",
    ),
    "its parameters handed to a helper": ("freeze_all(self.head.parameters())", "", ""),
    "a mode switch kept by a name": (
        "self.head.parameters()",
        "\n    def layer(self):\n        head = self.head.eval()\n        return head\n",
        "",
    ),
    "a class handing out its parameters": (
        "self.head.parameters()",
        "\n    def parameters(self):\n        return self.head.parameters()\n",
        "",
    ),
    "getattr anywhere": (
        "self.head.parameters()",
        "\n    def layer(self, name):\n        return getattr(self, name)\n",
        "",
    ),
}


def _outside(uses: str, extra: str, header: str = "") -> bool:
    source = TRAINER.format(uses=uses, extra=extra)
    if header:
        source = "class Base:\n    pass\n" + source.replace("class Trainer:", header)
    tree = ast.parse(source)
    return outside_freezes(tree, "head", build_scope(tree, None).resolve)


@pytest.mark.parametrize("name", list(ENCLOSED))
def test_a_layer_a_plain_class_keeps_to_itself(name: str) -> None:
    assert _outside(*ENCLOSED[name])


@pytest.mark.parametrize("name", list(OPEN))
def test_a_layer_that_may_reach_a_freeze(name: str) -> None:
    assert not _outside(*OPEN[name])


def test_a_kept_layer_still_trains_beside_a_frozen_encoder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kept = TRAINER.format(uses="self.head.parameters()", extra="").replace(
        "return self.head(self.encoder(x))", "out = self.head(x)  # <- out\n        return out"
    )
    assert fact_at(kept, monkeypatch).grad is Grad.TRACKED
    handed = kept.replace(
        "def step(self, x):", "def layer(self):\n        return self.head\n\n    def step(self, x):"
    )
    assert fact_at(handed, monkeypatch).grad is Grad.UNKNOWN


def test_layers_built_by_a_helper_are_fresh() -> None:
    """`self.netD = make_critic()` of a function returning a new torch.nn layer (also an
    InstanceNorm, whatever its `affine` flag) on every call: a module of its own, outside a
    freeze of another attribute; a helper returning something else is not."""
    source = (
        "import torch\nfrom torch import nn\n"
        "def make_critic():\n    return nn.Sequential(nn.Linear(4, 4), nn.InstanceNorm1d(4))\n"
        "def make_other(m):\n    return m\n"
        "class Pair(nn.Module):\n    def __init__(self, m):\n        super().__init__()\n"
        "        self.critic = make_critic()\n        self.gen = nn.Linear(4, 4)\n"
        "        self.other = make_other(m)\n"
        "pair = Pair(nn.Linear(2, 2))\npair.gen.requires_grad_(False)\n"
    )
    tree = ast.parse(source)
    resolve = build_scope(tree, None).resolve
    assert outside_freezes(tree, "critic", resolve)
    assert not outside_freezes(tree, "other", resolve)
    assert not outside_freezes(tree, "gen", resolve)
