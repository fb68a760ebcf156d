"""Names that certainly hold no autograd history (`analysis/historyless_names.py`), and
`NameFlow.reaches` stopping at them."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.historyless_names import historyless_names
from gradguard.analysis.model import analyse_module
from gradguard.analysis.name_flow import NameFlow

PRELUDE = """
import torch
from torch import nn
net = nn.Linear(4, 1)
other = nn.Linear(4, 1)
x = torch.randn(8, 4)
"""


def _historyless(snippet: str) -> set[str]:
    source = PRELUDE + textwrap.dedent(snippet)
    tree = ast.parse(source)
    flow = NameFlow(tree)
    return {name for _, name in historyless_names(analyse_module(tree, source), flow)}


@pytest.mark.parametrize(
    ("snippet", "names"),
    [
        # Computed under no_grad, from a module's output.
        (
            """
            with torch.no_grad():
                target = net(x) * 0.9 + 1
            """,
            {"target"},
        ),
        # Detached, and a number taken out of a tensor.
        (
            """
            target = net(x).detach()
            scale = net(x).mean().item()
            """,
            {"target", "scale"},
        ),
        # In a function, bound in a loop, every time under no_grad.
        (
            """
            def step():
                for _ in range(3):
                    with torch.no_grad():
                        target = other(x).max(dim=1).values
                return target
            """,
            {"target"},
        ),
    ],
)
def test_values_without_history(snippet: str, names: set[str]) -> None:
    assert names <= _historyless(snippet)


@pytest.mark.parametrize(
    "snippet",
    [
        # Changed in place by a tensor with history after the binding.
        """
        with torch.no_grad():
            target = torch.zeros(8, 1)
        target.add_(net(x))
        """,
        # Bound with history on another path.
        """
        import random
        if random.random() < 0.5:
            target = net(x)
        else:
            with torch.no_grad():
                target = net(x)
        """,
        # An alias of a module, made under no_grad: the module itself.
        """
        with torch.no_grad():
            target = net
        """,
        # Bound by a loop or a tuple, or a parameter rebound: not a plain assignment.
        """
        with torch.no_grad():
            for target in [net(x)]:
                pass
            target, _ = net(x), 1
        def f(target):
            target = target.detach()
            return target
        """,
        # An item stored into it.
        """
        with torch.no_grad():
            target = torch.zeros(8, 1)
        target[0] = net(x)[0]
        """,
        # A view under no_grad of a tensor that may be the module's weight itself.
        """
        with torch.no_grad():
            target = net.weight.to("cpu")
        """,
    ],
)
def test_values_that_may_carry_history(snippet: str) -> None:
    assert "target" not in _historyless(snippet)


def test_reaches_stops_at_a_historyless_name() -> None:
    source = PRELUDE + textwrap.dedent(
        """
        with torch.no_grad():
            target = other(x)
        pred = net(x)
        loss = (pred - target).pow(2).mean()
        """
    )
    tree = ast.parse(source)
    flow = NameFlow(tree)
    ends = historyless_names(analyse_module(tree, source), flow)
    keys = {n.id: flow.key_of(n) for n in ast.walk(tree) if isinstance(n, ast.Name)}
    loss_reads = flow.reads(tree.body[-1].value)  # type: ignore[attr-defined]
    everything = flow.reaches(loss_reads)
    graph = flow.reaches(loss_reads, ends)
    assert keys["other"] in everything and keys["other"] not in graph
    assert keys["net"] in graph and keys["target"] in graph
