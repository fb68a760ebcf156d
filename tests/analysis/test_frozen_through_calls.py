"""A module frozen by its caller stays frozen in the function it is handed to, and the
items of a list or tuple literal are what a loop over it binds."""

from __future__ import annotations

import textwrap

import pytest

from gradguard.core.engine import check_source
from gradguard.core.settings import Settings

TRAIN = """
import torch
import torch.nn.functional as F

def train(model, data, optimizer):
    for inputs, labels in data:
        loss = F.cross_entropy(model(inputs), labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

model = torch.nn.Linear(5, 3)
other = torch.nn.Linear(5, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for p in {frozen}.parameters():
    p.requires_grad = False
data = {data}
{calls}
"""

BATCHES = (
    "[(torch.randn(2, 5), torch.tensor([0, 1])), (torch.randn(3, 5), torch.tensor([2, 0, 1]))]"
)

CASES = [
    ("the caller froze the model it passes", {}, True),
    ("another module was frozen", {"frozen": "other"}, False),
    (
        "one caller passes a frozen model, another not",
        {"calls": "train(model, data, optimizer)\ntrain(other, data, optimizer)"},
        False,
    ),
    (
        "one batch of unknown origin",
        {"data": "[(torch.randn(2, 5), torch.tensor([0, 1])), load()]"},
        False,
    ),
    (
        "batches that require grad",
        {"data": "[(torch.randn(2, 5, requires_grad=True), torch.tensor([0, 1]))]"},
        False,
    ),
]


@pytest.mark.parametrize(("title", "parts", "found"), CASES, ids=[c[0] for c in CASES])
def test_a_frozen_model_handed_to_a_training_function(
    title: str, parts: dict[str, str], found: bool
) -> None:
    fields = {"frozen": "model", "data": BATCHES, "calls": "train(model, data, optimizer)", **parts}
    source = textwrap.dedent(TRAIN).format(**fields)
    findings = check_source(source, settings=Settings(select=("GG104",))).findings
    assert [f.code for f in findings] == (["GG104"] if found else [])
