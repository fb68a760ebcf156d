"""A parameter every call of the file binds to a one-shot iterator is scanned as if bound
at the top of its function (`analysis/parameter_iterators.py`): D2L's `grad_clipping`."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module
from gradguard.analysis.name_flow import NameFlow
from gradguard.analysis.parameter_iterators import ReusedIterator, reused_iterators

HEADER = "import torch\nfrom torch import nn\nmodel = nn.Linear(4, 2)\n"

CLIP = """
def clip(params, theta):
    norm = sum((p.grad ** 2).sum() for p in params)
    if norm > theta:
        for p in params:
            p.grad *= theta / norm
"""


def _found(body: str) -> list[ReusedIterator]:
    text = HEADER + textwrap.dedent(body)
    tree = ast.parse(text)
    return reused_iterators(analyse_module(tree, text), lambda: NameFlow(tree))


@pytest.mark.parametrize(
    "calls",
    [
        "clip(model.parameters(), 1)\n",
        "clip(model.parameters(), 1)\nclip(theta=2, params=model.parameters())\n",
        "for i in range(3):\n    clip(filter(lambda p: p.requires_grad, model.parameters()), 1)\n",
    ],
    ids=["one-call", "keyword", "filter-in-a-loop"],
)
def test_a_parameter_every_call_binds_to_a_generator_is_one_shot(calls: str) -> None:
    [found] = _found(CLIP + calls)
    assert isinstance(found.binding, ast.arg) and found.name == "params"
    assert found.first is not None and found.first.consumer == "sum()"
    assert found.second.consumer.startswith("the loop")
    assert len(found.arguments) == calls.count("clip(")
    assert found.source is found.arguments[0]


def test_a_loop_in_the_body_repeats_a_parameter() -> None:
    body = "def f(ps):\n    for i in range(3):\n        list(ps)\n\nf(model.parameters())\n"
    [found] = _found(body)
    assert found.first is None and isinstance(found.loop, ast.For)


@pytest.mark.parametrize(
    "calls",
    [
        "clip(list(model.parameters()), 1)\n",
        "clip(model.parameters(), 1)\nclip([model.weight], 1)\n",
        "clip(model.parameters(), 1)\nhooks = [clip]\n",
        "clip(model.parameters(), 1)\nclip = torch.jit.ignore(clip)\n",
        "clip(*[model.parameters()], 1)\n",
        "clip(model.parameters(), 1)\nclip(**{'params': model.parameters(), 'theta': 1})\n",
        "clip(unknown.parameters(), 1)\n",
        "",
    ],
    ids=["list", "one-list", "callback", "rebound", "starred", "kwargs", "unknown", "uncalled"],
)
def test_calls_not_all_one_shot_or_not_all_seen_stay_silent(calls: str) -> None:
    assert _found(CLIP + calls) == []


@pytest.mark.parametrize(
    "body",
    [
        "def f(ps):\n    return sum(p.numel() for p in ps)\n\nf(model.parameters())\n",
        "def f(ps, n=model.parameters()):\n    list(n)\n    list(n)\n\nf(model.parameters())\n",
        "def f(ps):\n    ps = list(ps)\n    list(ps)\n    list(ps)\n\nf(model.parameters())\n",
        "def f(ps):\n    g = lambda: list(ps)\n    list(ps)\n    g()\n\nf(model.parameters())\n",
        "class C:\n    def f(self, ps):\n        list(ps)\n        list(ps)\n\n"
        "C().f(model.parameters())\n",
        "@torch.no_grad()\ndef f(ps):\n    list(ps)\n    list(ps)\n\nf(model.parameters())\n",
    ],
    ids=["once", "default", "rebound-first", "lambda", "method", "decorated"],
)
def test_other_functions_stay_silent(body: str) -> None:
    assert _found(body) == []
