"""A generator of parameters `__init__` keeps on `self` and iterates to its end, read again
by another method of the class (`analysis/held_iterators.py`)."""

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


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
"""

KEPT = """
class Trainer:
    def __init__(self):
        self.net = Net()
        self.params = self.net.parameters()
        self.opt = torch.optim.SGD(self.params, lr=0.1)

    def step(self):
        torch.nn.utils.clip_grad_norm_(self.params, 1.0)
"""


def _found(body: str) -> list[ReusedIterator]:
    text = textwrap.dedent(HEADER) + textwrap.dedent(body)
    tree = ast.parse(text)
    return reused_iterators(analyse_module(tree, text), lambda: NameFlow(tree))


def test_a_generator_used_up_by_init_is_empty_in_every_other_method() -> None:
    [found] = _found(KEPT)
    assert found.name == "self.params"
    assert found.first is not None and found.first.consumer == "SGD()"
    assert found.second.label == "self.params"
    assert found.second.consumer == "clip_grad_norm_()"
    assert found.adjacent


def test_a_filter_counted_in_init_then_given_to_an_optimizer() -> None:
    [found] = _found(
        """
class Tuner:
    def __init__(self, model):
        self.model = model
        self.trainable = filter(lambda p: p.requires_grad, self.model.parameters())
        print(sum(p.numel() for p in self.trainable))

    def optimizer(self):
        return torch.optim.Adam(self.trainable)

Tuner(Net())
"""
    )
    assert found.first is not None and found.first.consumer == "sum()"
    assert found.second.consumer == "Adam()"


def test_the_same_attribute_name_in_an_unrelated_class_does_not_matter() -> None:
    [found] = _found(
        KEPT
        + """
class Other:
    def __init__(self):
        self.params = [1, 2]
"""
    )
    assert found.name == "self.params"


@pytest.mark.parametrize(
    "body",
    [
        # A list can be iterated again.
        KEPT.replace(
            "self.params = self.net.parameters()", "self.params = list(self.net.parameters())"
        ),
        # `__init__` never walks it: the method's read is the first.
        KEPT.replace("self.opt = torch.optim.SGD(self.params, lr=0.1)", "self.lr = 0.1"),
        # Walked only when asked.
        KEPT.replace(
            "self.opt = torch.optim.SGD(self.params, lr=0.1)",
            "self.opt = torch.optim.SGD(self.params, lr=0.1) if self.net else None",
        ),
        KEPT.replace(
            "        self.opt = torch.optim.SGD(self.params, lr=0.1)",
            "        if self.net.training:\n            self.opt = torch.optim.SGD(self.params)",
        ),
        # `__init__` may return before walking it.
        KEPT.replace(
            "        self.opt = torch.optim.SGD(self.params, lr=0.1)",
            "        if self.net.training:\n            return\n"
            "        self.opt = torch.optim.SGD(self.params, lr=0.1)",
        ),
        # Another method stores the attribute again.
        KEPT + "\n    def reset(self):\n        self.params = self.net.parameters()\n",
        # A subclass stores it too (its instances are Trainers).
        KEPT
        + "\nclass Fresh(Trainer):\n    def step(self):\n"
        + "        self.params = self.net.parameters()\n"
        + "        torch.nn.utils.clip_grad_norm_(self.params, 1.0)\n",
        # Attributes set by computed names.
        KEPT + "\nsetattr(Trainer, 'x', 1)\n",
        # Read first by something that is not a consumption (it may keep a copy).
        KEPT.replace(
            "        self.opt = torch.optim.SGD(self.params, lr=0.1)",
            "        self.kept = self.params\n        self.opt = torch.optim.SGD(self.params)",
        ),
        # A static method has no `self`.
        KEPT.replace("    def step(self):", "    @staticmethod\n    def step(self):"),
    ],
)
def test_lookalikes_stay_silent(body: str) -> None:
    assert _found(body) == []
