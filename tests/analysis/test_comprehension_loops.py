"""A list comprehension whose element makes a call runs like a `for` loop
(`FunctionInterpreter._expr_ListComp`): state that the call carries from one item to the
next is seen, and the comprehension's names stay inside it."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module
from gradguard.core.engine import check_source

_TRAINER = """
import torch
from torch import nn

class Trainer:
    def __init__(self):
        self.rnn = nn.GRU(3, 6)
        self.hidden = None

    def step(self, x):
        out, self.hidden = self.rnn(x, self.hidden)
        out.sum().backward()

    def fit(self, batches):
        {call}
"""


def _carried_into_backward(call: str) -> bool:
    """Whether the state `step` leaves on `self` reaches the next call's backward, as the
    hidden-state rule (GG201, the one reader of such carries) reports it."""
    source = textwrap.dedent(_TRAINER).replace("{call}", call)
    return any(f.code == "GG201" for f in check_source(source).findings)


@pytest.mark.parametrize(
    "call",
    [
        "return [self.step(x) for x in batches]",
        "for x in batches:\n            self.step(x)",
        "return [self.step(x) for x in batches if x is not None]",
    ],
)
def test_state_carried_through_repeated_calls_reaches_backward(call: str) -> None:
    assert _carried_into_backward(call)


@pytest.mark.parametrize(
    "call",
    [
        "self.step(batches[0])",  # called once
        "return (self.step(x) for x in batches)",  # lazy: may never run
        "return [x for x in batches]",  # no call in the element
    ],
)
def test_no_repeated_call_carries_nothing(call: str) -> None:
    assert not _carried_into_backward(call)


def test_the_comprehension_names_do_not_leak() -> None:
    source = textwrap.dedent(
        """
        import torch
        x = torch.ones(2, requires_grad=True)
        ys = [torch.relu(x) for x in range(3)]
        x.sum().backward()
        """
    )
    analysis = analyse_module(ast.parse(source), source)
    (backward,) = analysis.backward_calls
    assert backward.value.grad.name == "TRACKED"
