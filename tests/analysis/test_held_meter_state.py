"""An accumulation into the state of an instance through a method the loop calls is an
accumulation carried by that loop (`ModuleAnalysis.events`: an `Accumulation` of the
method, seen from the caller's loop, with the state as the total), only when the state
certainly persists: the instance is the same on every iteration, nothing in the loop resets
it, and the method adds to what the previous call left (`self.sum += val`, or an item of a
list it keeps, `self.sums[i] += v`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import Accumulation
from gradguard.analysis.model import analyse_module

PRELUDE = """
import torch
from torch import nn

model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)]


class Meter:
    def __init__(self):
        self.sums = [0, 0]
        self.sum = 0

    def reset(self):
        self.sums = [0, 0]
        self.sum = 0

    def update(self, values):
        for i, v in enumerate(values):
            self.sums[i] += v

    def first(self, val):
        self.sums[0] += val

    def total(self, val):
        self.sum += val

    def detached(self, val):
        self.sum += val.detach()

    def replaced(self, val):
        self.sums[0] += val
        self.sums = [0, 0]

"""


def _carried(body: str) -> bool:
    """Whether some accumulation with history of a `Meter` method is seen from the loop of
    `train` (the `for` in `body`), with the meter's state as its total."""
    source = PRELUDE + textwrap.dedent(body)
    tree = ast.parse(source)
    analysis = analyse_module(tree, source)
    train = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "train")
    loops = {id(n) for n in ast.walk(train) if isinstance(n, ast.For)}
    return any(
        use.added.has_history
        and any(id(loop) in loops for loop in use.every_iteration)
        and any(c.key.startswith("self.sum") and c.loop is not None for c in use.value.carries)
        for use in analysis.events.of(Accumulation)
    )


def _step(call: str, *, before: str = "", inside: str = "") -> str:
    """A training loop calling `call` on every iteration after the backward."""
    lines = [
        "def train():",
        "    meter = Meter()",
        *([f"    {before}"] if before else []),
        "    for x, y in data:",
        *([f"        {inside}"] if inside else []),
        "        loss = nn.functional.mse_loss(model(x), y)",
        "        opt.zero_grad()",
        "        loss.backward()",
        "        opt.step()",
        f"        {call}",
        "    return meter",
        "",
        "train()",
    ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("body", "carried"),
    [
        # Items of a list the meter keeps, given the loss tensors.
        (_step("meter.update([loss, loss])"), True),
        (_step("meter.first(loss)"), True),
        (_step("meter.total(loss)"), True),
        # Reset before the loop only: still one meter for the whole loop.
        (_step("meter.first(loss)", before="meter.reset()"), True),
        # Look-alikes: a number, a detach inside the method, a meter built or reset on
        # every iteration, a sum rebound afresh by the method, a meter handed elsewhere.
        (_step("meter.first(loss.item())"), False),
        (_step("meter.detached(loss)"), False),
        (_step("meter.first(loss)", inside="meter = Meter()"), False),
        (_step("meter.total(loss)", inside="meter = Meter()"), False),
        (_step("meter.first(loss)", inside="meter.reset()"), False),
        (_step("meter.total(loss)", inside="meter.reset()"), False),
        (_step("meter.replaced(loss)"), False),
        (_step("meter.first(loss)", inside="print(meter)"), False),
    ],
)
def test_accumulation_into_held_state(body: str, carried: bool) -> None:
    assert _carried(body) is carried


def test_a_meter_kept_on_a_trainer() -> None:
    """The meter is an attribute of the trainer whose method runs the loop; a step method
    of the trainer that leaves the meter alone keeps it held."""
    body = """
    class Trainer:
        def __init__(self):
            self.meter = Meter()

        def step(self, x, y):
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss

        def train(self):
            for x, y in data:
                loss = self.step(x, y)
                self.meter.update([loss])

    Trainer().train()
    """
    assert _carried(body)
    resetting = body.replace("return loss", "self.meter = Meter()\n            return loss")
    assert not _carried(resetting)
