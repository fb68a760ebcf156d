"""`.grad` reads made on a function's entry, of fresh leaves its callers hand down
(`analysis/handed_leaves.py`), and reads at the top of an inner loop (`unfilled_grads`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module
from gradguard.analysis.unfilled_grads import unfilled_grad_reads

_NET = """
import torch
from torch import nn

def reset(model):
    for p in model.parameters():
        p.grad.zero_()

def fit(model, data):
    for x in data:
        reset(model)
        model(x).sum().backward()
"""


def _read_lines(source: str) -> list[tuple[int, str]]:
    text = textwrap.dedent(source)
    tree = ast.parse(text)
    return [
        (read.use.stmt.lineno, read.created)
        for read in unfilled_grad_reads(analyse_module(tree, text))
    ]


def test_a_fresh_model_handed_down_two_calls() -> None:
    source = _NET + "\ndef main(data):\n    net = nn.Linear(2, 1)\n    fit(net, data)\n"
    assert _read_lines(source) == [(7, "net")]


def test_a_fresh_tensor_handed_down_by_keyword() -> None:
    source = """
    import torch

    def clear(w):
        w.grad.zero_()

    def run():
        weight = torch.zeros(3, requires_grad=True)
        for step in range(3):
            clear(w=weight)
            (weight * 2).sum().backward()
    """
    assert _read_lines(source) == [(5, "weight")]


@pytest.mark.parametrize(
    "main",
    [
        # One caller hands a model trained before the loop.
        "def main(data):\n    fit(nn.Linear(2, 1), data)\n",
        "def main(data):\n    net = nn.Linear(2, 1)\n    net(data[0]).sum().backward()\n"
        "    fit(net, data)\n",
        "def main(data, other):\n    net = nn.Linear(2, 1)\n    fit(net, data)\n"
        "    fit(other, data)\n",
        # Arguments passed by unpacking, or the function handed on as a value.
        "def main(data):\n    net = nn.Linear(2, 1)\n    fit(*(net, data))\n",
        "def main(data):\n    net = nn.Linear(2, 1)\n    fit(net, data)\n    run = fit\n",
        # The model comes from a function that is not provably fresh, or is rebound.
        "def main(data, build):\n    net = build()\n    fit(net, data)\n",
        "def main(data):\n    net = nn.Linear(2, 1)\n    net = load(net)\n    fit(net, data)\n",
    ],
)
def test_callers_that_do_not_hand_a_fresh_leaf(main: str) -> None:
    assert _read_lines(_NET + "\n" + main) == []


def test_read_guarded_or_after_backward_in_the_helper() -> None:
    guarded = _NET.replace(
        "        p.grad.zero_()", "        if p.grad is not None:\n            p.grad.zero_()"
    )
    late = _NET.replace(
        "        reset(model)\n        model(x).sum().backward()",
        "        model(x).sum().backward()\n        reset(model)",
    )
    main = "\ndef main(data):\n    net = nn.Linear(2, 1)\n    fit(net, data)\n"
    assert _read_lines(guarded + main) == []
    assert _read_lines(late + main) == []


def test_inner_loop_reached_first_when_all_backward_is_inside_it() -> None:
    source = """
    import torch

    def run(data):
        w = torch.randn(3, requires_grad=True)
        for epoch in range(2):
            total = 0.0
            for x in data:
                w.grad.zero_()
                (x @ w).sum().backward()
            print(total)
    """
    assert _read_lines(source) == [(9, "w")]


def test_inner_loop_when_backward_also_runs_outside_it() -> None:
    # On a first epoch with no batches, the backward after the inner loop runs first.
    source = """
    import torch

    def run(data):
        w = torch.randn(3, requires_grad=True)
        for epoch in range(2):
            for x in data:
                w.grad.zero_()
                (x @ w).sum().backward()
            (w * 2).sum().backward()
    """
    assert _read_lines(source) == []
