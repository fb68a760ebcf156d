"""An optimizer `__init__` stores on `self` is known in the other methods with what it holds
(`ModuleInterpreter._kept_optimizer`): the `self.<m>` it was built from, when `__init__`
makes the only store of both attributes and nothing in the file may add parameters to an
optimizer."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import OptimizerCall
from gradguard.analysis.model import analyse_module

TRAINER = """
import torch
from torch import nn

class Trainer:
    def __init__(self, model):
        {init}

    def step(self):
        self.optimizer.step()
{extra}
trainer = Trainer(nn.Linear(3, 3))
trainer.step()
"""


def _held_key(init: str, extra: str = "") -> str | None:
    source = textwrap.dedent(TRAINER).format(
        init=textwrap.indent(textwrap.dedent(init), " " * 8).strip(), extra=extra
    )
    analysis = analyse_module(ast.parse(source), source)
    steps = [e for e in analysis.events.of(OptimizerCall) if e.method == "step"]
    held = {e.value.optimizes.key if e.value.optimizes else None for e in steps}
    assert len(held) == 1, held
    return held.pop()


@pytest.mark.parametrize(
    ("init", "extra", "key"),
    [
        # Built from the parameter `self.model` keeps, or from `self.model` itself.
        (
            "self.model = model\nself.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)",
            "",
            "self.model",
        ),
        (
            "self.model = model\nself.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)",
            "",
            "self.model",
        ),
        (
            "self.model, self.other = model, 1\n"
            "self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)",
            "",
            "self.model",
        ),
        # Look-alikes: the module is not kept on self; the optimizer is stored twice; the
        # module attribute is set from outside; parameters may be added to an optimizer.
        ("self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)", "", None),
        (
            "self.model = model\nself.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)",
            "    def reset(self):\n        self.optimizer = torch.optim.SGD([], lr=0.1)\n",
            None,
        ),
        (
            "self.model = model\nself.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)",
            "\nTrainer(nn.Linear(3, 3)).model = nn.Linear(3, 3)\n",
            None,
        ),
        (
            "self.model = model\nself.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)",
            "    def grow(self, p):\n        self.optimizer.add_param_group({'params': [p]})\n",
            None,
        ),
    ],
)
def test_an_optimizer_kept_by_init(init: str, extra: str, key: str | None) -> None:
    assert _held_key(init, extra) == key


AGENT = """
import torch
from torch import nn

class Network(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.optimizer = torch.optim.Adam(self.parameters(), lr=1e-3)

    def forward(self, x):
        return self.fc(x)

    def update(self):
        self.optimizer.step()

class Agent:
    def __init__(self):
        self.actor = Network()
        self.critic = Network()

    def learn(self):
        self.critic.optimizer.step()
        self.actor.update()

net = Network()
net.optimizer.step()
Agent().learn()
"""


def test_an_optimizer_of_the_objects_own_parameters_is_the_instances() -> None:
    """`self.optimizer = Adam(self.parameters())` in a module class: inside its methods it
    holds `self`'s parameters; read through an instance, that instance's."""
    source = textwrap.dedent(AGENT)
    analysis = analyse_module(ast.parse(source), source)
    held = {
        e.stmt.lineno: e.value.optimizes.key if e.value.optimizes else None
        for e in analysis.events.of(OptimizerCall)
        if e.method == "step"
    }
    lines = source.splitlines()
    by_text = {lines[line - 1].strip(): key for line, key in held.items()}
    assert by_text == {
        "self.optimizer.step()": "self",
        "self.critic.optimizer.step()": "self.critic",
        "net.optimizer.step()": "net",
    }


@pytest.mark.parametrize(
    ("init", "extra", "key"),
    [
        # A layer of the module `__init__` is handed: held as that layer of `self.<m>`.
        (
            "self.model = model\nself.optimizer = torch.optim.SGD(model.body.parameters(), lr=0.1)",
            "",
            "self.model.body",
        ),
        (
            "self.model = model\nself.optimizer = torch.optim.SGD(\n"
            "    list(model.body.parameters()) + list(model.head.parameters()), lr=0.1)",
            "",
            "self.model.body",
        ),
        # Look-alikes: the layer is set from outside the class's methods; two levels deep.
        (
            "self.model = model\nself.optimizer = torch.optim.SGD(model.body.parameters(), lr=0.1)",
            "\nnet = Net()\nnet.body = nn.Linear(3, 3)\n",
            None,
        ),
        (
            "self.model = model\n"
            "self.optimizer = torch.optim.SGD(model.body.inner.parameters(), lr=0.1)",
            "",
            None,
        ),
    ],
)
def test_an_optimizer_of_a_layer_kept_by_init(init: str, extra: str, key: str | None) -> None:
    source = textwrap.dedent(LAYERED).format(
        init=textwrap.indent(textwrap.dedent(init), " " * 8).strip(), extra=extra
    )
    analysis = analyse_module(ast.parse(source), source)
    steps = [e for e in analysis.events.of(OptimizerCall) if e.method == "step"]
    held = {e.value.optimizes.key if e.value.optimizes else None for e in steps}
    assert held == {key}


LAYERED = """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
        self.head = nn.Linear(3, 1)

    def forward(self, x):
        return self.head(self.body(x))

class Trainer:
    def __init__(self, model):
        {init}

    def step(self):
        self.optimizer.step()
{extra}
trainer = Trainer(Net())
trainer.step()
"""
