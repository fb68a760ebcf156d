"""A run of a function for one call (`interpreter.context_runs`) binds what the call passes
and, for the parameters it leaves out, their defaults: `model(x)` runs `forward` with
`return_tensor=True` when that is the default."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module
from gradguard.analysis.values import Grad

MODEL = """
import torch
from torch import nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
    def forward(self, x, return_tensor={default}):
        out = self.fc(x)
        if return_tensor:
            out = out.data
        return out
model = Net()
{call}.sum().backward()
"""


def _backpropagated(default: str, call: str) -> Grad:
    source = textwrap.dedent(MODEL).format(default=default, call=call)
    (backward,) = analyse_module(ast.parse(source), source).backward_calls
    return backward.value.grad


def test_a_left_out_parameter_holds_its_default() -> None:
    assert _backpropagated("True", "model(torch.randn(3, 4))") is Grad.UNTRACKED


@pytest.mark.parametrize(
    ("default", "call"),
    [
        ("False", "model(torch.randn(3, 4))"),  # the default skips the cut
        ("True", "model(torch.randn(3, 4), return_tensor=False)"),  # the call overrides it
        ("True", "model(torch.randn(3, 4), False)"),
        ("FLAG", "model(torch.randn(3, 4))"),  # not a literal: unknown
    ],
)
def test_passed_or_unknown_defaults_do_not_cut(default: str, call: str) -> None:
    assert _backpropagated(default, call) is not Grad.UNTRACKED
