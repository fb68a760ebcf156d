"""A total seeded with a number literal that a loop makes a tensor is that tensor after the
loop and at the top of each iteration (`statements._seeded_totals`, `_probed_head`): on the
zero-iteration path it would be the number, of which every tensor-only use raises anyway."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import Conversion
from gradguard.analysis.model import analyse_module

HEAD = """
import torch
from torch import nn
model = nn.Linear(3, 1)
batches = [torch.randn(2, 3) for _ in range(3)]
def evaluate(flag):
"""


def _converted(body: str) -> list[str]:
    source = HEAD + textwrap.indent(textwrap.dedent(body), "    ")
    analysis = analyse_module(ast.parse(source), source)
    return [e.value.grad.name for e in analysis.events.of(Conversion) if e.method == "numpy"]


@pytest.mark.parametrize(
    ("body", "grads"),
    [
        ("total = 0\nfor x in batches:\n    total += model(x).sum()\ntotal.numpy()\n", ["TRACKED"]),
        (
            "total = 0.0\nfor x in batches:\n    total = total + model(x).sum()\ntotal.numpy()\n",
            ["TRACKED"],
        ),
        # Inside the loop, from the first iteration on.
        (
            "total = 0\nfor x in batches:\n    total += model(x).sum()\n    total.numpy()\n",
            ["TRACKED"],
        ),
        # Look-alikes: a total of numbers; accumulated on some iterations only; not seeded
        # with a number literal.
        ("total = 0\nfor x in batches:\n    total += model(x).sum().item()\n", []),
        (
            "total = 0\nfor x in batches:\n    if flag:\n        total += model(x).sum()\n"
            "total.numpy()\n",
            [],
        ),
        ("total = None\nfor x in batches:\n    total = model(x).sum()\ntotal.numpy()\n", []),
        ("total = flag\nfor x in batches:\n    total += model(x).sum()\ntotal.numpy()\n", []),
    ],
)
def test_a_total_seeded_with_a_number(body: str, grads: list[str]) -> None:
    assert [g for g in _converted(body) if g != "UNKNOWN"] == grads


@pytest.mark.parametrize(
    ("iterable", "tensor"),
    [
        ("range(int(input()))", True),
        ("batches", True),
        # Certainly empty: the total stays the number.
        ("range(0)", False),
        ("range(5, 1)", False),
        ("range(0, 10, 0)", False),  # raises ValueError before the body
        ("[]", False),
        ("[*empty]", False),
        ("{}", False),
    ],
)
def test_unless_the_loop_is_certainly_empty(iterable: str, tensor: bool) -> None:
    body = f"empty = []\ntotal = 0\nfor x in {iterable}:\n    total += model(x).sum()\n"
    assert _converted(body + "total.numpy()\n") == (["TRACKED"] if tensor else [])
