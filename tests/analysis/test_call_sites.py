"""Parameters known from call sites: `def train(model, ...)` gets the facts every call in the
file passes, and nothing when some mention of it is not a visible call."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module
from gradguard.analysis.values import Grad, Kind

PRELUDE = "import torch\nfrom torch import nn\nnet = nn.Linear(3, 1)\n"

# Each snippet defines `step(model, x)` whose body backpropagates `model(x).sum()`; the
# expected value is the autograd state of that loss.
STEP = """
def step(model, x):
    loss = model(x).sum()
    loss.backward()
"""

CASES = [
    ("one call with a module", "step(net, torch.randn(2, 3))", Grad.TRACKED),
    ("every call with a module", "step(net, 1)\nstep(nn.Linear(3, 1), 2)", Grad.TRACKED),
    ("keyword arguments", "step(x=torch.randn(2, 3), model=net)", Grad.TRACKED),
    ("called from a function", "def main():\n    step(net, 0)\nmain()", Grad.TRACKED),
    ("a chain of two callers", "def fit(m):\n    step(m, 0)\nfit(net)", Grad.TRACKED),
    ("one caller passes something unknown", "step(net, 0)\nstep(load(), 0)", Grad.UNKNOWN),
    ("passed as a callback too", "step(net, 0)\nrun(step)", Grad.UNKNOWN),
    ("rebound elsewhere", "step(net, 0)\nstep = wrap(step)", Grad.UNKNOWN),
    ("argument unpacking", "step(*[net, 0])", Grad.UNKNOWN),
    ("keyword unpacking", "step(**{'model': net, 'x': 0})", Grad.UNKNOWN),
    ("never called", "", Grad.UNKNOWN),
    ("under no_grad at the call", "with torch.no_grad():\n    step(net, 0)", Grad.UNTRACKED),
    (
        "under no_grad at one call",
        "step(net, 0)\nwith torch.no_grad():\n    step(net, 0)",
        Grad.UNKNOWN,
    ),
]


@pytest.mark.parametrize(("title", "calls", "expected"), CASES, ids=[c[0] for c in CASES])
def test_parameter_facts_from_call_sites(title: str, calls: str, expected: Grad) -> None:
    source = PRELUDE + STEP + textwrap.dedent(calls) + "\n"
    analysis = analyse_module(ast.parse(source), source)
    losses = [c for c in analysis.backward_calls if c.function is not None]
    assert len(losses) == 1
    assert losses[0].value.grad is expected


def test_methods_learn_from_calls_on_self() -> None:
    source = PRELUDE + textwrap.dedent(
        """
        class Trainer:
            def __init__(self):
                self.model = nn.Linear(3, 1)

            def fit(self, batches):
                for x in batches:
                    self.train_batch(self.model, x)

            def train_batch(self, model, x):
                loss = model(x).sum()
                loss.backward()
        """
    )
    analysis = analyse_module(ast.parse(source), source)
    (call,) = analysis.backward_calls
    assert call.value.grad is Grad.TRACKED and call.value.kind is Kind.TENSOR


def test_framework_hooks_stay_unknown() -> None:
    """A class with a base the file does not define: its methods are called by the
    framework too, so their parameters stay unknown even when the file calls them."""
    source = PRELUDE + textwrap.dedent(
        """
        import lightning

        class Module(lightning.LightningModule):
            def training_step(self, model, x):
                loss = model(x).sum()
                loss.backward()

            def check(self):
                self.training_step(net, 0)
        """
    )
    analysis = analyse_module(ast.parse(source), source)
    (call,) = analysis.backward_calls
    assert call.value.grad is Grad.UNKNOWN
