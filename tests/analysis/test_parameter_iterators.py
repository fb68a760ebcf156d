"""One-shot iterators of parameters iterated again (`analysis/parameter_iterators.py`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module
from gradguard.analysis.name_flow import NameFlow
from gradguard.analysis.parameter_iterators import ReusedIterator, reused_iterators

HEADER = "import itertools\nimport torch\nfrom torch import nn\nmodel = nn.Linear(4, 2)\n"


def _found(body: str) -> list[ReusedIterator]:
    text = HEADER + textwrap.dedent(body)
    tree = ast.parse(text)
    return reused_iterators(analyse_module(tree, text), lambda: NameFlow(tree))


@pytest.mark.parametrize(
    ("body", "consumer", "first"),
    [
        ("p = model.parameters()\nopt = torch.optim.SGD(p)\nlist(p)\n", "list()", "SGD()"),
        ("p = model.buffers()\nfor b in p:\n    pass\ntuple(p)\n", "tuple()", "the loop"),
        ("p = (q for q in model.parameters())\nsum(q.numel() for q in p)\n[*p]\n", "`*p`", "sum"),
        ("p = itertools.chain(model.parameters())\nset(p)\nsorted(p)\n", "sorted()", "set()"),
    ],
    ids=["optimizer-then-list", "loop-then-tuple", "genexpr", "chain"],
)
def test_a_second_full_read_is_found(body: str, consumer: str, first: str) -> None:
    [found] = _found(body)
    assert found.second.consumer == consumer
    assert found.first is not None and found.first.consumer.startswith(first)
    assert found.adjacent


def test_a_read_in_a_loop_started_after_the_binding_repeats() -> None:
    [found] = _found(
        "p = model.parameters()\nfor i in range(3):\n    torch.nn.utils.clip_grad_norm_(p, 1)\n"
    )
    assert found.first is None and isinstance(found.loop, ast.For)
    assert found.second.silent == "clips no gradient"


@pytest.mark.parametrize(
    "body",
    [
        "p = list(model.parameters())\nlist(p)\nlist(p)\n",
        "p = model.parameters()\nlist(p)\np = model.parameters()\nlist(p)\n",
        "p = model.parameters()\nif model:\n    list(p)\nlist(p)\n",
        "p = model.parameters()\nfor q in p:\n    break\nlist(p)\n",
        "p = model.parameters()\nprint(p)\nlen(list(model.parameters()))\n",
        "p = model.parameters()\nfor i in range(1):\n    list(p)\n",
        "p = model.parameters()\nfor i in range(3):\n    if i == 0:\n        list(p)\n",
        "p = model.parameters()\nfor i in range(3):\n    list(p)\n    break\n",
        "p = model.parameters()\nf = lambda: list(p)\nlist(p)\nlist(p)\n",
        "p = unknown.parameters()\nlist(p)\nlist(p)\n",
        "p = filter(None, [1, 2])\nlist(p)\nlist(p)\n",
        "p = model.parameters()\nx = list(p) if model else []\nlist(p)\n",
    ],
    ids=[
        "list",
        "rebound",
        "first-under-if",
        "first-breaks",
        "not-iterated",
        "single-iteration",
        "first-iteration-only",
        "breaks-at-once",
        "closure",
        "unknown-receiver",
        "not-parameters",
        "conditional-expression",
    ],
)
def test_look_alikes_are_silent(body: str) -> None:
    assert _found(body) == []
