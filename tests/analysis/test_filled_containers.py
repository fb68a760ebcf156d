"""A container a helper of the file builds with its elements written out
(`params = init_params()`, whose every `return` is `[w1, b1, ...]`): each call makes a new
container that surely holds an element (`Paths.returns_filled_container`). A loop over it,
nested in a training loop, so runs its body on the training loop's first pass, and a
`.grad` read there fails before the first backward (GG407). Helpers whose container may be
empty or is not written out (a comprehension, `list(...)`, a parameter handed back) leave
that unknown."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module
from gradguard.analysis.unfilled_grads import Paths
from gradguard.core.engine import check_source
from gradguard.core.settings import Settings

HELPERS = {
    "a list written out": "def make():\n    a = torch.zeros(2, requires_grad=True)\n"
    "    b = torch.zeros(2, requires_grad=True)\n    return [a, b]",
    "a name bound once to a tuple": "def make():\n    a = torch.zeros(2, requires_grad=True)\n"
    "    out = (a,)\n    return out",
    "a dict written out": "def make():\n    return {'w': torch.zeros(2, requires_grad=True)}",
    "an empty list": "def make():\n    return []",
    "a comprehension": "def make(n=2):\n"
    "    return [torch.zeros(2, requires_grad=True) for _ in range(n)]",
    "an argument handed back": "def make(ps=()):\n    return ps",
    "one path empty": "def make(flag=False):\n    if flag:\n        return []\n"
    "    return [torch.zeros(2, requires_grad=True)]",
    "a list that may shrink": "def make():\n    out = [torch.zeros(2, requires_grad=True)]\n"
    "    out.pop()\n    return out",
}
FILLED = {"a list written out", "a name bound once to a tuple", "a dict written out"}


def _call_and_paths(helper: str) -> tuple[Paths, ast.Call]:
    source = f"import torch\n{helper}\n\nparams = make()\n"
    tree = ast.parse(source)
    call = tree.body[-1]
    assert isinstance(call, ast.Assign) and isinstance(call.value, ast.Call)
    return Paths(analyse_module(tree, source)), call.value


@pytest.mark.parametrize("title", list(HELPERS))
def test_a_helper_returns_a_filled_container(title: str) -> None:
    paths, call = _call_and_paths(HELPERS[title])
    assert paths.returns_filled_container(call) is (title in FILLED)


def test_an_unknown_callee_is_not_a_filled_container() -> None:
    paths, call = _call_and_paths("from elsewhere import make")
    assert paths.returns_filled_container(call) is False


PROGRAM = """
import torch


def init_params():
    w = torch.randn(3, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    return [w, b]


def fit(x):
    params = init_params()
    for epoch in range(4):
        for p in params:
            {read}
        loss = (x @ params[0] + params[1]).sum()
        loss.backward()
"""


@pytest.mark.parametrize(
    ("read", "found"),
    [
        ("p.grad.zero_()", True),
        ("p.grad.data.zero_()", True),
        ("if p.grad is not None:\n                p.grad.zero_()", False),
        ("p.grad = None", False),
    ],
)
def test_a_nested_loop_over_a_helper_container_reads_before_backward(
    read: str, found: bool
) -> None:
    source = textwrap.dedent(PROGRAM).replace("{read}", read)
    ast.parse(source)
    findings = check_source(source, settings=Settings(select=("GG407",))).findings
    assert [f.code for f in findings] == (["GG407"] if found else [])
