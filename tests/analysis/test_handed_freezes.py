"""Freeze helpers handed different modules (`analysis/handed_freezes.py`): `def freeze(m):
m.requires_grad_(False)` freezes whatever module a call hands it, so `freeze(model.embed)`,
`freeze(model.head)` freeze those layers even though the helper's own summary, joining what
its callers pass, knows no module (a run with each call's arguments does: `ContextRun.frozen`).
A helper whose freeze sits in a branch, or that freezes a module it does not take as a
parameter, or that rebinds the parameter, is not such a helper."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.handed_freezes import freezing_parameters
from gradguard.core.engine import check_source
from gradguard.core.settings import Settings


def _function(text: str) -> ast.FunctionDef:
    function = ast.parse(textwrap.dedent(text)).body[0]
    assert isinstance(function, ast.FunctionDef)
    return function


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("def f(m):\n    m.requires_grad_(False)", {"m"}),
        ("def f(m):\n    for p in m.parameters():\n        p.requires_grad = False", {"m"}),
        ("def f(a, b):\n    a.requires_grad_(False)\n    b.requires_grad_(False)", {"a", "b"}),
        ("def f(m, on):\n    if on:\n        m.requires_grad_(False)", set()),
        ("def f(m):\n    m.requires_grad_(True)", set()),
        ("def f(m):\n    model.requires_grad_(False)", set()),
        ("def f(m):\n    m = m.body\n    m.requires_grad_(False)", set()),
        ("def f(m):\n    m.head.requires_grad_(False)", set()),
    ],
)
def test_which_parameters_a_function_freezes_whole(text: str, names: set[str]) -> None:
    assert freezing_parameters(_function(text)) == names


PROGRAM = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 2)

    def forward(self, ids):
        return self.head(self.embed(ids).mean(1))


{helper}


def run():
    ids = torch.randint(0, 10, (2, 3))
    net = Net()
{calls}
    net(ids).sum().backward()
"""


@pytest.mark.parametrize(
    ("helper", "calls", "found"),
    [
        (
            "def freeze(m):\n    m.requires_grad_(False)",
            ["freeze(net.embed)", "freeze(net.head)"],
            True,
        ),
        ("def freeze(m):\n    m.requires_grad_(False)", ["freeze(net.embed)"], False),
        (
            "def freeze(m, keep=False):\n    if keep:\n        return\n    m.requires_grad_(False)",
            ["freeze(net.embed)", "freeze(net.head, keep=True)"],
            False,
        ),
        (
            "def freeze(m):\n    for p in m.parameters():\n        p.requires_grad = False",
            ["freeze(net.head)", "freeze(net.embed)"],
            True,
        ),
    ],
)
def test_each_call_of_a_freeze_helper_freezes_its_argument(
    helper: str, calls: list[str], found: bool
) -> None:
    source = textwrap.dedent(PROGRAM).format(
        helper=helper, calls="\n".join("    " + call for call in calls)
    )
    findings = check_source(source, settings=Settings(select=("GG104",))).findings
    assert bool(findings) is found
