"""Which module calls certainly saved one of the module's own weights (`ParameterSaves`),
as GG205 asks it: the layer tables were checked against torch 2.13.0."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import ModuleCall
from gradguard.analysis.facts import ParameterSaves
from gradguard.analysis.model import analyse_module

PRELUDE = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n"


def _saved(body: str, input_requires_grad: bool) -> str | None:
    """What the last `net(...)` call of `body` saved, as a description."""
    source = PRELUDE + textwrap.dedent(body)
    tree = ast.parse(source)
    analysis = analyse_module(tree, source)
    qualified = {id(t.call): t.qualified for t in analysis.torch_calls}
    saves = ParameterSaves(tree, lambda call: qualified.get(id(call)))
    calls = [u for u in analysis.events.of(ModuleCall) if ast.unparse(u.target) == "net"]
    assert calls, "no call of `net`"
    use = calls[-1]
    assert isinstance(use.node, ast.Call) and use.value.module is not None
    found = saves.saved_parameter(use.node, use.value.module, input_requires_grad)
    return found.description if found is not None else None


LOCAL_CHAIN = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        return self.fc2(h).squeeze(1)

net = Net()
net(torch.randn(2, 3))
"""
LOCAL_BRANCH = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        if x.sum() > 0:
            return self.fc1(x)
        return self.fc2(self.fc1(x))

net = Net()
net(torch.randn(2, 3))
"""
LOCAL_CONV_SEQUENTIAL = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Conv2d(1, 2, 3), nn.Flatten())

    def forward(self, input):
        return self.main(input).view(-1)

net = Net()
net(torch.randn(2, 1, 5, 5))
"""


@pytest.mark.parametrize(
    ("body", "input_requires_grad", "expected"),
    [
        # nn.Linear keeps its weight only for its input's gradient.
        ("net = nn.Linear(3, 1)\nnet(torch.randn(2, 3))", False, None),
        ("net = nn.Linear(3, 1)\nnet(torch.randn(2, 3))", True, "nn.Linear"),
        ("net = nn.Conv1d(1, 2, 3)\nnet(torch.randn(2, 1, 5))", False, "nn.Conv1d"),
        ("net = nn.LSTM(3, 4)\nnet(torch.randn(2, 1, 3))", False, "nn.LSTM"),
        ("net = nn.Embedding(5, 3)\nnet(torch.tensor([1]))", True, None),
        # The second Linear gets the first one's output, which requires grad.
        (
            "net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))\nnet(x)",
            False,
            "nn.Linear",
        ),
        ("net = nn.Sequential(nn.Linear(3, 4), nn.ReLU())\nnet(x)", False, None),
        # An unknown layer may cut history: nothing after it is certain.
        ("net = nn.Sequential(nn.Linear(3, 4), Cut(), nn.Linear(4, 1))\nnet(x)", False, None),
        # Bound twice: which Sequential runs is not known.
        (
            "net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))\n"
            "net = nn.Sequential(nn.Linear(3, 1))\nnet(x)",
            False,
            None,
        ),
        (LOCAL_CHAIN, False, "nn.Linear"),
        (LOCAL_BRANCH, False, None),
        (LOCAL_CONV_SEQUENTIAL, False, "nn.Conv2d"),
    ],
)
def test_saved_parameter(body: str, input_requires_grad: bool, expected: str | None) -> None:
    assert _saved(body, input_requires_grad) == expected
