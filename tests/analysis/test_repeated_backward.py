"""`repeated_backward.repeated_backwards`: a backward call that certainly runs again, on a
loop's next iteration, through graph nodes built before the loop; and
`ParameterSaves.saved_by_method`, what a method of a module class of the file saved
(`model.embed(x)`), which GG205 reads for such nodes."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import LoopTrips, ModuleMethodCall
from gradguard.analysis.facts import ParameterSaves, repeated_backwards
from gradguard.analysis.model import analyse_module

PRELUDE = """
import torch
from torch import nn

EPOCHS = 3
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
x = torch.randn(5, 4)
"""


def _kept(body: str) -> list[str]:
    """The expressions of the nodes built before a loop that the backward calls of `body`
    certainly run through again on the loop's next iteration."""
    source = PRELUDE + textwrap.dedent(body)
    analysis = analyse_module(ast.parse(source), source)
    found = repeated_backwards(analysis.backward_calls, analysis.events.of(LoopTrips))
    return sorted(ast.unparse(n.node) for again in found for n in again.kept)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # Built before the loop, read by every iteration.
        (
            """
            h = net(x)
            for i in range(EPOCHS):
                (h * i).sum().backward(retain_graph=True)
            """,
            ["net(x)"],
        ),
        # Inside a function, with the loop's trips known from a module constant.
        (
            """
            def fit():
                h = net(x)
                for i in range(EPOCHS):
                    loss = h.pow(2).mean()
                    loss.backward(retain_graph=True)
            """,
            ["net(x)"],
        ),
        # Built inside the loop: a new node on every iteration.
        (
            """
            for i in range(EPOCHS):
                h = net(x)
                h.sum().backward(retain_graph=True)
            """,
            [],
        ),
        # Re-bound later in the body: the next iteration reads the new one.
        (
            """
            h = net(x)
            for i in range(EPOCHS):
                h.sum().backward(retain_graph=True)
                h = net(x)
            """,
            [],
        ),
        # The loop may run once.
        (
            """
            h = net(x)
            for i in range(1):
                h.sum().backward(retain_graph=True)
            """,
            [],
        ),
        # The number of trips is not known.
        (
            """
            def fit(epochs):
                h = net(x)
                for i in range(epochs):
                    h.sum().backward(retain_graph=True)
            """,
            [],
        ),
        # The backward runs on some iterations only.
        (
            """
            h = net(x)
            for i in range(EPOCHS):
                if i % 2 == 0:
                    h.sum().backward(retain_graph=True)
            """,
            [],
        ),
        # An iteration may end early (before the call, or the loop after it).
        (
            """
            h = net(x)
            for i in range(EPOCHS):
                if i == 1:
                    continue
                h.sum().backward(retain_graph=True)
            """,
            [],
        ),
        (
            """
            h = net(x)
            for i in range(EPOCHS):
                h.sum().backward(retain_graph=True)
                if h.sum() > 0:
                    break
            """,
            [],
        ),
        # A `break` of an inner loop ends that loop only.
        (
            """
            h = net(x)
            for i in range(EPOCHS):
                h.sum().backward(retain_graph=True)
                for j in range(4):
                    if j == 2:
                        break
            """,
            ["net(x)"],
        ),
        # Detached before the loop: no node of `net` is in the graph.
        (
            """
            h = net(x).detach()
            for i in range(EPOCHS):
                (h * torch.ones(1, requires_grad=True)).sum().backward(retain_graph=True)
            """,
            [],
        ),
    ],
)
def test_repeated_backwards(body: str, expected: list[str]) -> None:
    assert _kept(body) == expected


MODEL = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8))
        self.proj = nn.Linear(4, 8)
        self.conv = nn.Conv1d(1, 2, 3)
        self.head = nn.Linear(8, 1)

    def forward(self, h):
        return self.head(h)

{method}

model = Net()
x = torch.randn(5, 4)
model.{name}(x{extra})
"""


def _saved_by_method(method: str, name: str, extra: str = "") -> str | None:
    source = MODEL.format(
        method=textwrap.indent(textwrap.dedent(method), "    "), name=name, extra=extra
    )
    tree = ast.parse(source)
    analysis = analyse_module(tree, source)
    qualified = {id(t.call): t.qualified for t in analysis.torch_calls}
    saves = ParameterSaves(tree, lambda call: qualified.get(id(call)))
    uses = [u for u in analysis.events.of(ModuleMethodCall) if u.method == name]
    assert uses, f"no call of model.{name}"
    use = uses[-1]
    assert isinstance(use.node, ast.Call) and use.value.module is not None
    found = saves.saved_by_method(use.node, use.value.module, use.method, False)
    return found.description if found is not None else None


@pytest.mark.parametrize(
    ("method", "name", "extra", "expected"),
    [
        # A chain through a Sequential: its second Linear gets an input with history.
        ("def embed(self, x):\n    return self.mlp(x)\n", "embed", "", "nn.Linear"),
        # A sum of two layers' outputs: backward runs into the left one.
        (
            "def embed(self, x, p):\n    return self.mlp(x) + self.proj(p)\n",
            "embed",
            ", x",
            "nn.Linear",
        ),
        # A convolution saves its weight whatever its input.
        (
            "def embed(self, x):\n    return self.conv(x.unsqueeze(1)).mean(-1)\n",
            "embed",
            "",
            "nn.Conv1d",
        ),
        # One Linear on plain data keeps no weight.
        ("def embed(self, x):\n    return self.proj(x)\n", "embed", "", None),
        # A sum whose left operand is the input: the chain does not reach a layer.
        ("def embed(self, x):\n    return x + self.proj(x)\n", "embed", "", None),
        # Not a chain: a comparison cuts the history.
        ("def embed(self, x):\n    return self.mlp(x) > 0\n", "embed", "", None),
    ],
)
def test_saved_by_method(method: str, name: str, extra: str, expected: str | None) -> None:
    assert _saved_by_method(method, name, extra) == expected
