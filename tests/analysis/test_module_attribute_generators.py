"""`self.net.parameters()` is a one-shot generator when `self.net` certainly holds a module
of the file: every store of `net` sets it to a new module in a method of the class
(`analysis/parameter_iterators.py`, `_Finder._module_attribute`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module
from gradguard.analysis.name_flow import NameFlow
from gradguard.analysis.parameter_iterators import ReusedIterator, reused_iterators

HEADER = """
import torch
from torch import nn


def clip(params, theta):
    norm = sum((p.grad ** 2).sum() for p in params)
    for p in params:
        p.grad *= theta / norm


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
"""

AGENT = """
class Agent:
    def __init__(self):
        self.net = Net()

    def update(self):
        clip(self.net.parameters(), 1.0)
"""


def _found(body: str) -> list[ReusedIterator]:
    text = textwrap.dedent(HEADER) + textwrap.dedent(body)
    tree = ast.parse(text)
    return reused_iterators(analyse_module(tree, text), lambda: NameFlow(tree))


def test_an_attribute_set_only_to_a_module_of_the_file_gives_a_generator() -> None:
    [found] = _found(AGENT)
    assert found.name == "params"
    assert ast.unparse(found.source) == "self.net.parameters()"
    assert found.first is not None and found.first.consumer == "sum()"


@pytest.mark.parametrize(
    "body",
    [
        "class Agent:\n    def __init__(self):\n        self.net = nn.Sequential(nn.Linear(4, 2))\n"
        "\n    def update(self):\n        ps = self.net.parameters()\n        list(ps)\n"
        "        list(ps)\n",
        "class Agent(object):\n    def __init__(self):\n        self.net = Net().to('cpu')\n"
        "\n    def update(self):\n        clip(self.net.parameters(), 1.0)\n",
        "class Agent:\n    def __init__(self):\n        self.net = Net()\n\n"
        "agent = Agent()\nclip(agent.net.parameters(), 1.0)\n",
    ],
    ids=["local-binding", "recast-object-base", "through-an-instance"],
)
def test_other_spellings_of_a_held_module_give_a_generator(body: str) -> None:
    assert len(_found(body)) == 1


@pytest.mark.parametrize(
    "extra",
    [
        "\nclass Other:\n    def set(self, net):\n        self.net = net\n",
        "\n    def reset(self, net):\n        self.net = net\n",
        "\n    def reset(self):\n        self.net = None\n",
        "\nagent = Agent()\nagent.net = Net()\n",
        "\n    def rename(self, key):\n        setattr(self, key, None)\n",
        "\n    def state(self):\n        return vars(self)\n",
        "\n    def __getattr__(self, name):\n        return None\n",
        "\n    @property\n    def net(self):\n        return self._net\n",
        "\n    def grow(self):\n        self.net += Net()\n",
        "\n    def grow(self):\n        self.net, self.other = Net(), Net()\n",
        "\n    def drop(self):\n        del self.net\n",
    ],
    ids=[
        "set-elsewhere",
        "reassigned-from-a-parameter",
        "reassigned-to-none",
        "set-through-an-instance",
        "setattr",
        "vars",
        "getattr-hook",
        "property",
        "augmented",
        "tuple-target",
        "deleted",
    ],
)
def test_an_attribute_that_may_hold_something_else_stays_silent(extra: str) -> None:
    assert _found(AGENT + extra) == []


@pytest.mark.parametrize(
    "body",
    [
        # Built elsewhere and handed in.
        "class Agent:\n    def __init__(self, net):\n        self.net = net\n"
        "\n    def update(self):\n        clip(self.net.parameters(), 1.0)\n",
        # A module whose parameters() returns a list.
        "class Listed(nn.Module):\n    def parameters(self, recurse=True):\n"
        "        return list(super().parameters(recurse))\n\n"
        "class Agent:\n    def __init__(self):\n        self.net = Listed()\n"
        "\n    def update(self):\n        clip(self.net.parameters(), 1.0)\n",
        # A fresh generator for each loop.
        "class Agent:\n    def __init__(self):\n        self.net = Net()\n"
        "\n    def update(self):\n        for p in self.net.parameters():\n            pass\n"
        "        for p in self.net.parameters():\n            pass\n",
        # Kept as a list.
        "class Agent:\n    def __init__(self):\n        self.net = Net()\n"
        "        self.params = list(self.net.parameters())\n"
        "\n    def update(self):\n        clip(self.params, 1.0)\n",
        # A base class of another file.
        "class Agent(Base):\n    def __init__(self):\n        self.net = Net()\n"
        "\n    def update(self):\n        clip(self.net.parameters(), 1.0)\n",
        # An instance name bound to something else too.
        "class Agent:\n    def __init__(self):\n        self.net = Net()\n\n"
        "agent = Agent()\nagent = make()\nclip(agent.net.parameters(), 1.0)\n",
    ],
    ids=["handed-in", "list-parameters", "fresh", "kept-list", "unknown-base", "instance-rebound"],
)
def test_look_alikes_stay_silent(body: str) -> None:
    assert _found(body) == []
