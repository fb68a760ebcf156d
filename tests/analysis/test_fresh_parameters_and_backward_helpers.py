"""Facts: a fresh `nn.Parameter(...)` bound to a parameter of a module an optimizer holds
makes that optimizer stale (`OptimizedParameters.stale`); a function each of whose
`if`/`else` branches backpropagates is seen to backpropagate on every call from the loops
calling it (`ModuleAnalysis.backward_in_calls`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module
from tests.analysis.test_value_facets import fact_at

SCALED = """
class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.scale = nn.Parameter(torch.ones(1))
        self.spare_init = nn.Parameter(torch.ones(1))
    def calibrate(self, v):
        self.scale = nn.Parameter(v)
    def forward(self, x):
        return self.lin(x) * self.scale
net = Scaled()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
"""


@pytest.mark.parametrize(
    "change",
    [
        "net.scale = nn.Parameter(torch.ones(1))",  # read by forward
        "net.spare_init = nn.Parameter(torch.ones(1))",  # registered in __init__
        "net.calibrate(torch.ones(1))",  # by a method, on `self`
    ],
)
def test_fresh_parameter_makes_the_optimizer_stale(
    change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = fact_at(SCALED + change + "\nheld = opt  # <- held\n", monkeypatch)
    assert held.optimizes is not None and held.optimizes.stale is not None


@pytest.mark.parametrize(
    "change",
    [
        "with torch.no_grad():\n    net.scale.copy_(torch.ones(1))",
        "net.scale.data.copy_(torch.ones(1))",
        "net.load_state_dict(Scaled().state_dict())",
        "net.other = nn.Parameter(torch.ones(1))",  # neither registered nor read
        "net.scale = nn.Parameter(torch.ones(1), requires_grad=False)",
        "net.scale = nn.Parameter(torch.ones(1))\nopt = torch.optim.SGD(net.parameters(), lr=0.1)",
    ],
)
def test_in_place_changes_keep_the_optimizer(change: str, monkeypatch: pytest.MonkeyPatch) -> None:
    held = fact_at(SCALED + change + "\nheld = opt  # <- held\n", monkeypatch)
    assert held.optimizes is not None and held.optimizes.stale is None


def _seen_from_the_loop(helper: str) -> bool:
    source = textwrap.dedent(helper) + textwrap.dedent(
        """
        import torch
        model = torch.nn.Linear(2, 1)
        for x in [torch.randn(3, 2)]:
            run(model(x).sum(), None)
        """
    )
    analysis = analyse_module(ast.parse(source), source)
    loop = next(n for n in ast.walk(analysis.tree) if isinstance(n, ast.For))
    return any(loop in e.every_iteration for e in analysis.backward_in_calls)


def test_every_branch_backpropagating_is_every_call() -> None:
    assert _seen_from_the_loop(
        """
        def run(loss, scaler):
            if scaler is not None:
                scaler.scale(loss).backward()
            elif loss.dim() > 0:
                loss.sum().backward()
            else:
                loss.backward()
        """
    )


@pytest.mark.parametrize(
    "helper",
    [
        """
        def run(loss, skip):
            if skip:
                print("skipped")
            else:
                loss.backward()
        """,
        """
        def run(loss, skip):
            if skip:
                loss.backward()
        """,
        """
        def run(loss, skip):
            if skip:
                return
            if skip is None:
                loss.backward()
            else:
                loss.backward()
        """,
    ],
)
def test_a_branch_without_backward_is_not_every_call(helper: str) -> None:
    assert not _seen_from_the_loop(helper)
