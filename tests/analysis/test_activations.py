"""The last-activation fact (`Value.activation`) as the loss-input uses see it."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import LossInput
from gradguard.analysis.facts import ActivationKind
from gradguard.analysis.model import analyse_module

PRELUDE = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n"
SOFTMAX, LOG_SOFTMAX = ActivationKind.SOFTMAX, ActivationKind.LOG_SOFTMAX
SIGMOID, LOGITS = ActivationKind.SIGMOID, ActivationKind.LOGITS


def _activation(body: str) -> ActivationKind | None:
    """The activation of the input of the only loss call of `body`."""
    source = PRELUDE + textwrap.dedent(body)
    uses = analyse_module(ast.parse(source), source).events.of(LossInput)
    assert len(uses) == 1, uses
    activation = uses[0].value.activation
    return activation.kind if activation is not None else None


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("F.cross_entropy(torch.softmax(x, 1), y)", SOFTMAX),
        ("F.cross_entropy(F.softmax(x, dim=1), y)", SOFTMAX),
        ("F.cross_entropy(torch.randn(3, 4).softmax(1), y)", SOFTMAX),
        ("nn.CrossEntropyLoss()(nn.Softmax(dim=1)(x), y)", SOFTMAX),
        ("F.nll_loss(F.log_softmax(x, dim=1), y)", LOG_SOFTMAX),
        ("F.nll_loss(nn.LogSoftmax(dim=1)(x), y)", LOG_SOFTMAX),
        ("nn.BCELoss()(torch.sigmoid(x), y)", SIGMOID),
        ("nn.BCELoss()(F.sigmoid(x), y)", SIGMOID),
        ("nn.BCELoss()(nn.Sigmoid()(x), y)", SIGMOID),
        ("nn.BCELoss()(nn.Linear(3, 1)(x), y)", LOGITS),
        # Shape-only ops keep it.
        ("p = torch.sigmoid(x)\nnn.BCELoss()(p.view(-1).float().squeeze(), y)", SIGMOID),
        ("F.binary_cross_entropy(torch.squeeze(nn.Linear(3, 1)(x), 1), y)", LOGITS),
        ("F.cross_entropy(input=F.softmax(x, 1).contiguous(), target=y)", SOFTMAX),
        # Indexing only picks values: each is still what the activation made it.
        ("F.cross_entropy(F.softmax(x, 1)[:, :3], y)", SOFTMAX),
        ("p = F.softmax(x, 1)\nF.nll_loss(p[mask], y[mask])", SOFTMAX),
        ("nn.BCELoss()(nn.Linear(3, 2)(x)[:, 0], y)", LOGITS),
        # The last layer of a Sequential, the return of a local forward.
        (
            "m = nn.Sequential(nn.Linear(3, 4), nn.Softmax(dim=1))\nF.cross_entropy(m(x), y)",
            SOFTMAX,
        ),
        (
            "m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))\nnn.BCELoss()(m(x), y)",
            LOGITS,
        ),
        (
            "class M(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.fc = nn.Linear(3, 1)\n"
            "    def forward(self, x):\n"
            "        return torch.sigmoid(self.fc(x))\n"
            "c = nn.BCEWithLogitsLoss()\n"
            "c(M()(x), y)",
            SIGMOID,
        ),
        # Both paths agree on the same producer.
        ("p = torch.sigmoid(x)\nif t:\n    q = p\nelse:\n    q = p\nnn.BCELoss()(q, y)", SIGMOID),
    ],
)
def test_producers_and_keepers(body: str, expected: ActivationKind) -> None:
    assert _activation(body) is expected


@pytest.mark.parametrize(
    "body",
    [
        "F.cross_entropy(F.softmax(x, 1) * 2, y)",  # arithmetic
        "F.cross_entropy(F.softmax(x, 1).log(), y)",  # another op
        "nn.BCELoss()(nn.Linear(3, 1)(x).clamp(0, 1), y)",
        "nn.BCELoss()(F.dropout(torch.sigmoid(x)), y)",
        "nn.BCELoss()(model(x), y)",  # an unknown model
        "nn.BCELoss()(x.sigmoid(), y)",  # an unknown receiver
        # Only one path applies it.
        "p = x\nif t:\n    p = torch.sigmoid(x)\nnn.BCELoss()(p, y)",
        # Two different producers on two paths.
        "if t:\n    p = torch.sigmoid(x)\nelse:\n    p = torch.sigmoid(x)\nnn.BCELoss()(p, y)",
        # Changed in place.
        "p = torch.sigmoid(torch.randn(3))\np.mul_(2)\nnn.BCELoss()(p, y)",
        "p = torch.sigmoid(torch.randn(3))\np[0] = 5.0\nnn.BCELoss()(p, y)",
        "p = torch.sigmoid(torch.randn(3))\nnn.BCELoss()(p.add_(1), y)",
        # A Sequential whose layers change after it is built.
        "m = nn.Sequential(nn.Linear(3, 1))\nm.append(nn.Sigmoid())\nnn.BCELoss()(m(x), y)",
        "m = nn.Sequential(nn.Linear(3, 1))\nm[0] = nn.Sigmoid()\nnn.BCELoss()(m(x), y)",
        # A forward whose layer is swapped from outside.
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(3, 1)\n"
        "    def forward(self, x):\n"
        "        return self.fc(x)\n"
        "m = M()\n"
        "m.fc = nn.Sequential(nn.Linear(3, 1), nn.Sigmoid())\n"
        "nn.BCELoss()(m(x), y)",
        # A forward that returns different things on different paths.
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(3, 1)\n"
        "    def forward(self, x):\n"
        "        if self.training:\n"
        "            return self.fc(x)\n"
        "        return torch.sigmoid(self.fc(x))\n"
        "nn.BCELoss()(M()(x), y)",
    ],
)
def test_unknown_or_cleared(body: str) -> None:
    assert _activation(body) is None


_TWO_HEADS = """
class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)

    def forward(self, x):
        return torch.sigmoid(self.fc(x)), {second}

a, b = TwoHeads()(x)
F.nll_loss(b, y)
"""


@pytest.mark.parametrize(
    ("second", "expected"),
    [
        ("torch.softmax(self.fc(x), 1)", SOFTMAX),
        ("F.log_softmax(self.fc(x), dim=1)", LOG_SOFTMAX),
        ("self.fc(x) * 2", None),
    ],
)
def test_each_element_of_a_returned_tuple_keeps_its_activation(
    second: str, expected: ActivationKind | None
) -> None:
    """A local forward returning a tuple: each element the caller unpacks ends with the
    activation its own expression ended with."""
    assert _activation(_TWO_HEADS.replace("{second}", second)) is expected
