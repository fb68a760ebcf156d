"""`layer.weight.grad` read before any backward, for a torch.nn layer built in the same
scope: the weight is a fresh parameter whose `.grad` is None (GG407)."""

from __future__ import annotations

import textwrap

import pytest

from gradguard.core.engine import check_source
from gradguard.core.settings import Settings

PROGRAM = """
import torch
from torch import nn
{build}
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    opt.zero_grad()
    {read}
    loss = model(torch.randn(4, 3)).pow(2).mean()
    loss.backward()
    opt.step()
"""

CASES = [
    ("a Linear's weight at the top of the loop", {}, True),
    (
        "guarded by a None test",
        {"read": "n = model.weight.grad.norm() if model.weight.grad is not None else 0"},
        False,
    ),
    ("read after the backward", {"read": "pass"}, False),
    ("a bias (maybe None)", {"read": "n = model.bias.grad.norm()"}, False),
    ("a layer given from elsewhere", {"build": "model = make()"}, False),
    (
        "a layer bound twice",
        {"build": "model = nn.Linear(3, 1)\nif cond:\n    model = make()"},
        False,
    ),
]


@pytest.mark.parametrize(("title", "parts", "found"), CASES, ids=[c[0] for c in CASES])
def test_a_layer_weight_read_before_backward(
    title: str, parts: dict[str, str], found: bool
) -> None:
    fields = {"build": "model = nn.Linear(3, 1)", "read": "n = model.weight.grad.norm()", **parts}
    source = textwrap.dedent(PROGRAM).format(**fields)
    findings = check_source(source, settings=Settings(select=("GG407",))).findings
    assert [f.code for f in findings] == (["GG407"] if found else [])
