"""The layers of an `nn.Sequential` subclass of the file that adds them by name in `__init__`
(`gradguard.analysis.sequential_subclasses.added_layers`), and what the facts built on it
say: an instance is an `nn.Sequential` of those layers, and a call of it saves the weight
of the first layer that does."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import ModuleCall
from gradguard.analysis.imports import build_scope
from gradguard.analysis.model import analyse_module
from gradguard.analysis.saved_parameters import ParameterSaves
from gradguard.analysis.sequential_subclasses import added_layers

HEADER = """
import torch
from torch import nn
"""


def _layers(source: str) -> list[str] | None:
    """The layers `added_layers` gives for the first class of `source`, as source text."""
    tree = ast.parse(HEADER + textwrap.dedent(source))
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    found = added_layers(node, build_scope(tree, None).resolve)
    return [ast.unparse(layer) for layer in found] if found is not None else None


def test_layers_in_the_order_they_are_added() -> None:
    source = """
    class Block(nn.Sequential):
        \"\"\"conv, norm, act.\"\"\"

        def __init__(self, cin, cout):
            super().__init__()
            self.add_module("conv", nn.Conv2d(cin, cout, 3))
            self.add_module("norm", nn.BatchNorm2d(cout))
            self.add_module("act", nn.ReLU())
    """
    assert _layers(source) == ["nn.Conv2d(cin, cout, 3)", "nn.BatchNorm2d(cout)", "nn.ReLU()"]


@pytest.mark.parametrize(
    "source",
    [
        # Built on nn.Module: add_module registers, but its forward is the class's own.
        """
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.add_module("conv", nn.Conv2d(3, 3, 3))
        """,
        # Its own forward: not a plain chain of the layers.
        """
        class Block(nn.Sequential):
            def __init__(self):
                super().__init__()
                self.add_module("conv", nn.Conv2d(3, 3, 3))

            def forward(self, x):
                return x
        """,
        # Layers given to the base as well: the order is not the added one alone.
        """
        class Block(nn.Sequential):
            def __init__(self):
                super().__init__(nn.ReLU())
                self.add_module("conv", nn.Conv2d(3, 3, 3))
        """,
        # A layer added under a condition: may be missing.
        """
        class Block(nn.Sequential):
            def __init__(self, norm):
                super().__init__()
                if norm:
                    self.add_module("norm", nn.BatchNorm2d(3))
                self.add_module("conv", nn.Conv2d(3, 3, 3))
        """,
        # A computed name: may replace an earlier layer.
        """
        class Block(nn.Sequential):
            def __init__(self, name):
                super().__init__()
                self.add_module("conv", nn.Conv2d(3, 3, 3))
                self.add_module(name, nn.ReLU())
        """,
        # The same name twice: the second replaces the first in place.
        """
        class Block(nn.Sequential):
            def __init__(self):
                super().__init__()
                self.add_module("conv", nn.Conv2d(3, 3, 3))
                self.add_module("conv", nn.Linear(3, 3))
        """,
        # `self` handed on: anything may be added.
        """
        class Block(nn.Sequential):
            def __init__(self):
                super().__init__()
                self.add_module("conv", nn.Conv2d(3, 3, 3))
                extend(self)
        """,
        # A class attribute besides `__init__`.
        """
        class Block(nn.Sequential):
            scale = 2

            def __init__(self):
                super().__init__()
                self.add_module("conv", nn.Conv2d(3, 3, 3))
        """,
        # Two bases.
        """
        class Block(nn.Sequential, Mixin):
            def __init__(self):
                super().__init__()
                self.add_module("conv", nn.Conv2d(3, 3, 3))
        """,
    ],
)
def test_anything_else_is_not_known(source: str) -> None:
    assert _layers(source) is None


SINGAN_LIKE = """
class Block(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__()
        self.add_module("conv", nn.Conv2d(cin, cout, 3, 1, 1))
        self.add_module("act", nn.LeakyReLU(0.2))


class Dense(nn.Sequential):
    def __init__(self, width):
        super().__init__()
        self.add_module("fc", nn.Linear(width, width))
        self.add_module("act", nn.Tanh())


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = Block(3, 4)
        self.tail = nn.Conv2d(4, 3, 3, 1, 1)

    def forward(self, x):
        return self.tail(self.head(x))


net = Net()
block = Block(3, 3)
dense = Dense(4)
a = net(torch.randn(1, 3, 8, 8))
b = block(torch.randn(1, 3, 8, 8))
c = dense(torch.randn(2, 4))
"""


def _saves() -> dict[str, str | None]:
    """What each top-level module call of `SINGAN_LIKE` saved, by the name called."""
    text = HEADER + SINGAN_LIKE
    tree = ast.parse(text)
    analysis = analyse_module(tree, text)
    qualified = {id(t.call): t.qualified for t in analysis.torch_calls}
    saves = ParameterSaves(tree, lambda call: qualified.get(id(call)))
    found: dict[str, str | None] = {}
    for use in analysis.events.of(ModuleCall):
        module = use.value.module
        if use.function is None and module is not None and isinstance(use.node, ast.Call):
            saved = saves.saved_parameter(use.node, module, False)
            found[ast.unparse(use.target)] = saved.description if saved is not None else None
    return found


def test_an_instance_is_a_sequential_of_its_added_layers() -> None:
    text = HEADER + SINGAN_LIKE
    analysis = analyse_module(ast.parse(text), text)
    calls = {
        ast.unparse(u.target): u.value.module
        for u in analysis.events.of(ModuleCall)
        if u.function is None
    }
    block = calls["block"]
    assert block is not None and block.qualified == "torch.nn.Sequential"
    assert block.children is not None
    assert [c.module.qualified for c in block.children if c.module is not None] == [
        "torch.nn.Conv2d",
        "torch.nn.LeakyReLU",
    ]


def test_a_call_saves_the_first_weight_its_layers_save() -> None:
    saves = _saves()
    assert saves["net"] == "nn.Conv2d"  # through `self.head`, a Block
    assert saves["block"] == "nn.Conv2d"
    # A Linear on a plain batch keeps its input, not its weight.
    assert saves["dense"] is None
