"""The forced leaf after a real cut (`Value.forced`, `forced_after_cut`): set where
requires_grad is forced on a tensor certainly cut from its history, kept only where that very
tensor flows (assignments, returns of functions and of a module's `forward`, tuple elements),
dropped by any op and by a join with a path that does not hold it; and GG109's match of a
backward on it in any function (`analysis/forced_grad.py`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.facts import LossKind, forced_grad_backprops
from gradguard.analysis.model import analyse_module
from gradguard.analysis.values import forced_after_cut
from tests.analysis.test_value_facets import fact_at

HELPER = """
def error_rate(logits, y):
    wrong = (logits.argmax(dim=1) != y).float().mean()
    wrong.requires_grad_()
    return wrong
"""

CRITERION = """
class Hinge(nn.Module):
    def forward(self, scores):
        loss = torch.from_numpy(scores.detach().numpy()).mean()
        loss.requires_grad = True
        return loss
crit = Hinge()
"""


def _forced_cut(snippet: str, monkeypatch: pytest.MonkeyPatch) -> LossKind | None:
    """The kind of cut behind the forced leaf bound at the marker, or None."""
    forced = forced_after_cut(fact_at(snippet, monkeypatch))
    return forced.cut.kind if forced is not None else None


@pytest.mark.parametrize(
    ("snippet", "cut"),
    [
        # Where the forcing is recorded: after a detach, through requires_grad_().
        ("loss = model(x).detach().sum()\nloss.requires_grad_()  # <- loss", LossKind.DETACH),
        ("loss = model(x).detach().sum()\nloss.requires_grad = True  # <- loss", LossKind.DETACH),
        # Returned by a helper, through its summary.
        (
            HELPER + "y = torch.zeros(3).long()\nloss = error_rate(model(x), y)  # <- loss",
            LossKind.NON_DIFFERENTIABLE,
        ),
        # Returned by a module's `forward`, through the restamped output.
        (CRITERION + "loss = crit(model(x))  # <- loss", LossKind.REWRAP),
        # An element of a returned tuple.
        (
            "def pair(t):\n    l = t.detach().mean()\n    l.requires_grad_()\n    return l, 0\n"
            "loss, n = pair(model(x))  # <- loss",
            LossKind.DETACH,
        ),
        # Assigned on: the same tensor.
        ("l = model(x).detach().sum()\nl.requires_grad_()\nloss = l  # <- loss", LossKind.DETACH),
        # Both paths hold the leaf of the same forcing.
        (
            CRITERION + "l = crit(model(x))\nif x.sum() > 0:\n    loss = l\nelse:\n"
            "    loss = l\nprint(loss)  # <- loss",
            LossKind.REWRAP,
        ),
    ],
    ids=["method", "setattr", "helper", "forward", "tuple", "assignment", "same on both paths"],
)
def test_a_forced_leaf_after_a_cut_flows_with_its_tensor(
    snippet: str, cut: LossKind, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _forced_cut(snippet, monkeypatch) is cut


@pytest.mark.parametrize(
    "snippet",
    [
        # A fresh leaf: nothing was cut.
        "w = torch.randn(3)\nw.requires_grad = True  # <- w",
        "import numpy as np\nw = torch.tensor(np.ones(3), requires_grad=True)  # <- w",
        "def fresh():\n    t = torch.randn(())\n    t.requires_grad = True\n    return t\n"
        "w = fresh()  # <- w",
        # Any op makes another tensor.
        (HELPER + "y = torch.zeros(3).long()\nloss = 2 * error_rate(model(x), y)  # <- loss"),
        (CRITERION + "loss = crit(model(x)).mean()  # <- loss"),
        # A forced input: what is computed from it is no forced leaf.
        "x_adv = x.detach()\nx_adv.requires_grad_()\nloss = model(x_adv).sum()  # <- loss",
        # A forward that forces on one branch only.
        "class Guarded(nn.Module):\n    def forward(self, p):\n        loss = p.sum()\n"
        "        if not loss.requires_grad:\n            loss = loss.detach()\n"
        "            loss.requires_grad_()\n        return loss\n"
        "loss = Guarded()(model(x))  # <- loss",
        # A returned parameter.
        "def weight(m):\n    return m.weight\nw = weight(model)  # <- w",
        # The flag not literally True.
        "flag = x.sum() > 0\nloss = model(x).detach().sum()\nloss.requires_grad_(flag)  # <- loss",
    ],
    ids=[
        "fresh randn",
        "tensor of an array",
        "fresh leaf returned",
        "op on a returned leaf",
        "op on a forward's leaf",
        "forced input",
        "one branch",
        "parameter",
        "unknown flag",
    ],
)
def test_no_forced_leaf_without_a_cut_or_the_tensor_itself(
    snippet: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _forced_cut(snippet, monkeypatch) is None


def _forced_backprops(source: str) -> list[tuple[int, int]]:
    """(forcing line, backward line) of every forcing GG109 ties to a backward."""
    text = "import numpy as np\nimport torch\nfrom torch import nn\n" + textwrap.dedent(source)
    analysis = analyse_module(ast.parse(text), text)
    found = forced_grad_backprops(analysis)
    return [(f.stmt.lineno - 3, f.backward.stmt.lineno - 3) for f in found]


def test_a_backward_in_another_function_on_a_forward_s_forced_leaf() -> None:
    source = """
    class Hinge(nn.Module):
        def forward(self, scores, labels):
            s = scores.detach().numpy()
            loss = torch.from_numpy(np.maximum(1.0 - s, 0.0)).mean()
            loss.requires_grad = True
            return loss


    def train(model, batches, optimizer, criterion):
        for x, y in batches:
            loss = criterion(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


    net = nn.Linear(3, 2)
    train(net, [(torch.randn(4, 3), torch.zeros(4))], torch.optim.SGD(net.parameters()), Hinge())
    """
    assert _forced_backprops(source) == [(6, 14)]


def test_a_backward_on_what_a_helper_returns_in_a_tuple() -> None:
    source = """
    def rate(logits, y):
        wrong = (logits.argmax(dim=1) != y).float().mean()
        wrong.requires_grad_(True)
        return wrong, wrong.item()


    net = nn.Linear(3, 2)
    loss, value = rate(net(torch.randn(4, 3)), torch.zeros(4).long())
    loss.backward()
    scaled = 2 * rate(net(torch.randn(4, 3)), torch.zeros(4).long())[0]
    scaled.backward()
    """
    assert _forced_backprops(source) == [(4, 10)]
