"""Whether a loop may change tensors in place between its backward passes
(`analysis/weight_updates.py`), the fact that makes a retained graph fail or not."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import FunctionNode
from gradguard.analysis.weight_updates import may_update_in_place


def _answer(source: str) -> bool:
    tree = ast.parse(textwrap.dedent(source))
    functions: dict[str, list[FunctionNode]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            functions.setdefault(node.name, []).append(node)
    loop = next(n for n in tree.body if isinstance(n, ast.For | ast.While))
    return may_update_in_place(loop, functions)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("for x in data:\n    loss.backward(retain_graph=True)\n    opt.step()\n", True),
        ("for x in data:\n    with torch.no_grad():\n        w -= lr * w.grad\n", True),
        ("for x in data:\n    w.add_(x)\n", True),
        ("def train(x):\n    opt.step()\nfor x in data:\n    train(x)\n", True),
        (
            "def inner():\n    w.mul_(2)\ndef outer():\n    inner()\nwhile True:\n    outer()\n",
            True,
        ),
        # A gradient or `.data` changed in place: no saved tensor's version moves.
        ("for x in data:\n    x.grad.zero_()\n    w.data -= 0.1 * w.grad\n", False),
        ("def show(img):\n    img.grad.fill_(0)\nfor i in range(4):\n    show(out)\n", False),
        ("for i in range(4):\n    out = conv(out)\n    print(out.sum())\n", False),
        # Recursion ends: each function of the file is read once.
        ("def f():\n    f()\nfor i in range(3):\n    f()\n", False),
    ],
)
def test_in_place_updates_in_a_loop_are_seen(source: str, expected: bool) -> None:
    assert _answer(source) is expected
