"""Optimizers held on `self` over a module no gradient can reach
(`analysis/gradless_modules.py`): each condition of the fact, and each look-alike that
breaks one of them."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.gradless_modules import gradless_steps
from gradguard.analysis.model import analyse_module
from gradguard.analysis.name_flow import NameFlow

# The positive: `self.optimizer` holds the target copy, which only runs under no_grad.
BASE = """
import copy
import torch
from torch import nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)

class Agent:
    def __init__(self):
        self.online = Net()
        self.target = copy.deepcopy(self.online)
        self.optimizer = torch.optim.Adam(self.target.parameters(), lr=1e-3)

    def goal(self, x):
        with torch.no_grad():
            return self.target(x).max(1).values

    def learn(self, x):
        loss = F.mse_loss(self.online(x).max(1).values, self.goal(x))
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def sync(self):
        self.target.load_state_dict(self.online.state_dict())
        self.target.eval()

agent = Agent()
agent.learn(torch.randn(8, 4))
agent.sync()
"""


def _steps(source: str) -> list[tuple[str, str, int]]:
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    analysis = analyse_module(tree, source)
    return [
        (fact.optimizer, fact.module, fact.step.stmt.lineno)
        for fact in gradless_steps(analysis, NameFlow(tree))
    ]


def test_the_target_copy_stepped():
    found = _steps(BASE)
    assert [(o, m) for o, m, _ in found] == [("self.optimizer", "self.target")]
    assert found[0][2] == BASE.splitlines().index("        self.optimizer.step()") + 1


def test_a_module_built_in_place():
    source = BASE.replace("copy.deepcopy(self.online)", "Net()")
    assert [(o, m) for o, m, _ in _steps(source)] == [("self.optimizer", "self.target")]


# The helper has no no_grad of its own: its only caller runs it under no_grad.
CALLER_OFF = BASE.replace(
    "        with torch.no_grad():\n            return self.target(x).max(1).values",
    "        return self.target(x).max(1).values",
).replace(
    "        loss = F.mse_loss(self.online(x).max(1).values, self.goal(x))",
    "        with torch.no_grad():\n            goal = self.goal(x)\n"
    "        loss = F.mse_loss(self.online(x).max(1).values, goal)",
)


def test_a_helper_run_only_under_no_grad():
    assert CALLER_OFF != BASE
    assert [(o, m) for o, m, _ in _steps(CALLER_OFF)] == [("self.optimizer", "self.target")]


def test_a_helper_also_run_with_grad():
    source = CALLER_OFF + "agent.goal(torch.randn(2, 4)).sum().backward()\n"
    assert _steps(source) == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # The module also runs with grad: its output may enter the loss.
        (
            "self.goal(x))",
            "self.goal(x)) + self.target(x).mean()",
        ),
        # Its parameters are read directly.
        (
            "self.target.eval()",
            "self.target.eval()\n        print(list(self.target.parameters()))",
        ),
        # The holder is a module: its own parameters() hand the target out.
        ("class Agent:", "class Agent(nn.Module):"),
        # Aliased under another name.
        ("        self.target.eval()", "        alias = self.target.eval()"),
        # Bound a second time.
        ("        self.target.eval()", "        self.target = self.online"),
        # Reached by name as a string.
        ("        self.target.eval()", "        getattr(self, 'target').eval()"),
        # The optimizer is given more parameters.
        (
            "        self.target.eval()",
            "        self.optimizer.add_param_group({'params': self.online.parameters()})",
        ),
        # The step runs a closure.
        ("self.optimizer.step()", "self.optimizer.step(lambda: loss)"),
        # The module's code may turn grad on.
        ("return self.fc(x)", "with torch.enable_grad():\n            return self.fc(x)"),
        # The module's code lets the module out.
        ("return self.fc(x)", "print(self)\n        return self.fc(x)"),
        # A module built from another module: its parameters may be shared.
        (
            "self.target = copy.deepcopy(self.online)",
            "self.target = nn.Sequential(self.online.fc)",
        ),
        # The loss backpropagated has no history at all: GG102's case, not this fact's.
        ("loss.backward()", "loss.detach().backward()"),
        # The optimizer's attribute is stored twice.
        (
            "        self.target.eval()",
            "        self.optimizer = torch.optim.Adam(self.online.parameters())",
        ),
    ],
)
def test_look_alikes_stay_silent(old, new):
    assert old in BASE
    assert _steps(BASE.replace(old, new)) == []
