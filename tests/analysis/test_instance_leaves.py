"""`.grad` reads of tensors a fresh instance of a plain class holds from its `__init__`
(`analysis/instance_leaves.py`), read where the instance is built or in a function it is
handed to (`handed_leaves`), whose calls of the class's methods are looked into."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module
from gradguard.analysis.unfilled_grads import unfilled_grad_reads

_CLASS = """
import torch

class Weights:
    def __init__(self, d_in, d_out):
        self.w = torch.randn(d_in, d_out, requires_grad=True)
        self.scale = 0.5

    def forward(self, x):
        return x.mm(self.w) * self.scale

    def step(self, x, y):
        (self.forward(x) - y).pow(2).sum().backward()
"""

_HANDED = """
def fit(net, x, y):
    for step in range(5):
        net.w.grad.data.zero_()
        loss = (net.forward(x) - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            net.w -= 0.01 * net.w.grad

def main():
    net = Weights(4, 2)
    fit(net, torch.randn(8, 4), torch.randn(8, 2))
"""


def _reads(source: str) -> list[tuple[int, str]]:
    text = textwrap.dedent(source)
    tree = ast.parse(text)
    lines = text.splitlines()
    return [
        (read.use.stmt.lineno, lines[read.creation.lineno - 1].strip())
        for read in unfilled_grad_reads(analyse_module(tree, text))
    ]


def test_an_instance_handed_to_the_training_function() -> None:
    source = _CLASS + _HANDED
    assert _reads(source) == [(17, "net = Weights(4, 2)")]


def test_methods_of_the_instance_are_looked_into() -> None:
    # `net.forward(x)` runs the class's own method, which runs no backward.
    source = (_CLASS + _HANDED).replace(
        "    for step in range(5):\n        net.w.grad",
        "    net.forward(x)\n    for step in range(5):\n        net.w.grad",
    )
    assert _reads(source) == [(18, "net = Weights(4, 2)")]


def test_an_instance_built_in_the_same_function() -> None:
    source = (
        _CLASS
        + """
def main(x, y):
    net = Weights(4, 2)
    for step in range(5):
        net.w.grad.zero_()
        (net.forward(x) - y).pow(2).sum().backward()
"""
    )
    assert _reads(source) == [(18, "net = Weights(4, 2)")]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # Another store of the attribute (a method rebinding it, or any object's `.w`).
        (
            "        self.scale = 0.5\n",
            "        self.scale = 0.5\n\n    def reset(self):\n        self.w = torch.zeros(1)\n",
        ),
        (
            "    net = Weights(4, 2)\n",
            "    net = Weights(4, 2)\n    other = object()\n    other.w = None\n",
        ),
        ("    net = Weights(4, 2)\n", "    net = Weights(4, 2)\n    setattr(net, 'k', 1)\n"),
        # The tensor is not made by `__init__` itself, or only on one path.
        (
            "        self.w = torch.randn(d_in, d_out, requires_grad=True)\n",
            "        self.w = d_in\n",
        ),
        (
            "        self.w = torch.randn(d_in, d_out, requires_grad=True)\n",
            "        if d_in:\n            self.w = torch.randn(d_in, d_out, requires_grad=True)\n",
        ),
        # A class with a base (something inherited may run), or built by a decorator.
        ("class Weights:\n", "class Weights(Base):\n"),
        ("class Weights:\n", "@wrap\nclass Weights:\n"),
        # A method that runs backward is called before the read.
        (
            "    for step in range(5):\n        net.w.grad",
            "    net.step(x, y)\n    for step in range(5):\n        net.w.grad",
        ),
        # The method called is stored as an attribute somewhere: not surely the class's.
        (
            "    for step in range(5):\n        net.w.grad",
            "    net.forward = print\n    net.forward(x)\n    for step in range(5):\n"
            "        net.w.grad",
        ),
        # Another caller hands something else; the instance is used before being handed.
        (
            "    fit(net, torch.randn(8, 4), torch.randn(8, 2))\n",
            "    fit(net, torch.randn(8, 4), torch.randn(8, 2))\n    fit(load(), 1, 2)\n",
        ),
        (
            "    fit(net, torch.randn(8, 4), torch.randn(8, 2))\n",
            "    net.forward(torch.randn(8, 4)).sum().backward()\n"
            "    fit(net, torch.randn(8, 4), torch.randn(8, 2))\n",
        ),
        # The read is guarded.
        (
            "        net.w.grad.data.zero_()\n",
            "        if net.w.grad is not None:\n            net.w.grad.data.zero_()\n",
        ),
    ],
)
def test_look_alikes_stay_silent(old: str, new: str) -> None:
    source = _CLASS + _HANDED
    assert old in source
    assert _reads(source.replace(old, new)) == []


def test_a_module_subclass_is_not_a_plain_class() -> None:
    source = """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3))

def fit(net):
    for step in range(3):
        net.w.grad.zero_()
        net.w.sum().backward()

def main():
    fit(Net())
"""
    assert _reads(source) == []
