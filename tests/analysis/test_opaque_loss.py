"""The result of a callable the analysis cannot see, bound to a name `.backward()` is called
on, is the loss computed from what it was given: it depends on the loop-carried values its
arguments depend on. Any other opaque result stays free of them (a possible detach)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module

BODY = """
import torch
from torch import nn

def train(batches, criterion, helper):
    rnn = nn.GRU(3, 4)
    hidden = torch.zeros(1, 2, 4)
    for x, y in batches:
        {before}
        out, hidden = rnn(x, hidden)
        {loss}
        loss.backward()
"""


@pytest.mark.parametrize(
    ("before", "loss", "carried"),
    [
        ("pass", "loss = criterion(out, y)", True),
        ("pass", "loss = criterion(out.sum(-1), y)", True),
        # Look-alikes: the state goes through an unknown helper (a possible detach), or the
        # loss is computed from something else.
        ("hidden = helper(hidden)", "loss = criterion(out, y)", False),
        ("pass", "loss = criterion(x, y)", False),
    ],
)
def test_opaque_loss_depends_on_its_arguments(before: str, loss: str, carried: bool) -> None:
    source = textwrap.dedent(BODY).format(before=before, loss=loss)
    analysis = analyse_module(ast.parse(source), source)
    (event,) = analysis.backward_calls
    keys = {c.key for c in event.value.all_carries() if c.loop is not None}
    assert ("hidden" in keys) is carried
