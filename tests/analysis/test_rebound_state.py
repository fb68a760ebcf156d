"""Facts of summaries about state a function rebinds in a loop of its own: a parameter
(`FunctionSummary.rebound`) or an attribute of `self` the previous call left
(`FunctionSummary.rebound_state`). Each snippet states whether the fact holds, with the
look-alikes where it must not."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.interpreter.module import ModuleInterpreter
from gradguard.analysis.interpreter.summary import FunctionSummary
from gradguard.analysis.model import ModuleAnalysis

PRELUDE = "import torch\nfrom torch import nn\n"


def _summary(body: str, name: str) -> FunctionSummary:
    source = PRELUDE + textwrap.dedent(body)
    tree = ast.parse(source)
    interpreter = ModuleInterpreter(tree, ModuleAnalysis(tree), source)
    interpreter.run()
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    return interpreter.summary_of(node)


@pytest.mark.parametrize(
    ("helper", "rebound"),
    [
        # The parameter rebound over the time steps, returned alone or in a tuple.
        ("def f(chunk, h):\n    for x in chunk:\n        h = cell(x, h)\n    return h\n", True),
        (
            "def f(chunk, h):\n    outs = []\n    for x in chunk:\n        h = cell(x, h)\n"
            "        outs.append(h)\n    return torch.stack(outs), h\n",
            True,
        ),
        (
            "def f(xs, h):\n    for x in xs:\n        h = torch.tanh(x @ W + h)\n    return h\n",
            True,
        ),
        # Look-alikes: detached or re-created before the loop, detached in the step, not
        # returned, or rebound without history.
        (
            "def f(chunk, h):\n    h = h.detach()\n    for x in chunk:\n"
            "        h = cell(x, h)\n    return h\n",
            False,
        ),
        (
            "def f(chunk, h):\n    h = torch.zeros(2, 4)\n    for x in chunk:\n"
            "        h = cell(x, h)\n    return h\n",
            False,
        ),
        (
            "def f(chunk, h):\n    for x in chunk:\n"
            "        h = cell(x, h.detach())\n    return h\n",
            False,
        ),
        ("def f(chunk, h):\n    for x in chunk:\n        h = cell(x, h)\n    return None\n", False),
        ("def f(chunk, h):\n    for x in chunk:\n        h = h + 1\n    return h\n", False),
    ],
)
def test_parameter_rebound_in_a_loop(helper: str, rebound: bool) -> None:
    body = "cell = nn.GRUCell(2, 4)\nW = torch.randn(2, 4, requires_grad=True)\n" + helper
    summary = _summary(body, "f")
    assert ("h" in summary.rebound) is rebound


@pytest.mark.parametrize(
    ("forward", "rebound"),
    [
        (
            "    def forward(self, x):\n        for i in range(x.size(1)):\n"
            "            self.h = torch.relu(self.lin(self.h + x[:, i]))\n        return self.h\n",
            True,
        ),
        # Look-alikes: detached after the loop, reset before it, or never read first.
        (
            "    def forward(self, x):\n        for i in range(x.size(1)):\n"
            "            self.h = torch.relu(self.lin(self.h + x[:, i]))\n"
            "        self.h = self.h.detach()\n        return self.h\n",
            False,
        ),
        (
            "    def forward(self, x):\n        self.h = torch.zeros(2, 4)\n"
            "        for i in range(x.size(1)):\n"
            "            self.h = torch.relu(self.lin(self.h + x[:, i]))\n        return self.h\n",
            False,
        ),
        (
            "    def forward(self, x):\n        for i in range(x.size(1)):\n"
            "            self.h = torch.relu(self.lin(x[:, i]))\n        return self.h\n",
            False,
        ),
    ],
)
def test_state_rebound_in_forward_loop(forward: str, rebound: bool) -> None:
    body = (
        "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.lin = nn.Linear(4, 4)\n        self.h = 0\n\n" + forward
    )
    summary = _summary(body, "forward")
    assert ("h" in summary.rebound_state) is rebound
