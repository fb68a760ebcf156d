"""Attributes set by a setter method (`def add_loss_op(self, loss_op): self.loss_op =
loss_op`) hold what every call of the setter passes, when nothing else can bind them."""

from __future__ import annotations

import textwrap

import pytest

from gradguard.core.engine import check_source
from gradguard.core.settings import Settings

MODEL = """
import torch
from torch import nn

class Classifier(nn.Module):
    {default}
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        return torch.softmax(self.fc(x), dim=1)

    def add_loss_op(self, loss_op):
        {rebind}
        self.loss_op = loss_op

    def step(self, x, y):
        return self.loss_op(self(x), y)

model = Classifier()
model.add_loss_op(nn.NLLLoss())
{more}
model.step(torch.randn(4, 8), torch.randint(0, 3, (4,))).backward()
"""

CASES = [
    ("every call passes NLLLoss", {}, True),
    ("two calls, both NLLLoss", {"more": "model.add_loss_op(nn.NLLLoss())"}, True),
    ("a call passes something unknown", {"more": "model.add_loss_op(make())"}, False),
    ("stored from outside too", {"more": "model.loss_op = make()"}, False),
    ("deleted from outside", {"more": "del model.loss_op"}, False),
    ("a class-level default", {"default": "loss_op = None"}, False),
    ("the file calls setattr", {"more": "setattr(model, 'x', 1)"}, False),
    ("the setter passed around", {"more": "run(model.add_loss_op)"}, False),
    ("the parameter rebound first", {"rebind": "loss_op = wrap(loss_op)"}, False),
]


@pytest.mark.parametrize(("title", "parts", "known"), CASES, ids=[c[0] for c in CASES])
def test_a_setter_tells_what_the_attribute_holds(
    title: str, parts: dict[str, str], known: bool
) -> None:
    fields = {"default": "", "rebind": "", "more": "", **parts}
    source = textwrap.dedent(MODEL).format(**fields)
    found = check_source(source, settings=Settings(select=("GG113",))).findings
    assert [f.code for f in found] == (["GG113"] if known else [])
