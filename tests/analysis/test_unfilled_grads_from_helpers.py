"""`.grad` read before any backward, of a tensor a helper of the file created and returned
(`w1, w2 = init_weights()`, `w = new_weight()`): each call makes new leaves, whose `.grad`
is None until a backward reaches them (GG407). A helper that hands back a tensor it did not
create on this call (a global, a cached one, its argument), or that runs backward first,
proves nothing."""

from __future__ import annotations

import textwrap

import pytest

from gradguard.core.engine import check_source
from gradguard.core.settings import Settings

PROGRAM = """
import torch
SHARED = torch.zeros(3, requires_grad=True)
CACHE = []
{helper}

def fit(x):
    {bind}
    for _ in range(5):
        w.grad.zero_()
        loss = (x * w).sum()
        loss.backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
"""

PAIR = """
def init_weights():
    a = torch.randn(3, requires_grad=True)
    b = torch.zeros(3, requires_grad=True)
    return a, b
"""
ONE = """
def new_weight(n=3):
    return torch.randn(n).requires_grad_()
"""

CASES = [
    ("second of a returned pair", PAIR, "b, w = init_weights()", True),
    ("first of a returned pair", PAIR, "w, b = init_weights()", True),
    ("a returned expression", ONE, "w = new_weight()", True),
    (
        "a name bound on both branches",
        "def make(big):\n    if big:\n        t = torch.randn(9, requires_grad=True)\n"
        "    else:\n        t = torch.ones(3, requires_grad=True)\n    return t",
        "w = make(False)",
        True,
    ),
    (
        "a parameter",
        "def make():\n    return torch.nn.Parameter(torch.randn(3))",
        "w = make()",
        True,
    ),
    (
        "a triple unpacked into two names (fails before the read)",
        "def make():\n    a = torch.randn(3, requires_grad=True)\n    return a, a, a",
        "b, w = make()",
        False,
    ),
    ("a global handed back", "def make():\n    return SHARED", "w = make()", False),
    (
        "a cached tensor on some calls",
        "def make():\n    if CACHE:\n        return CACHE[0]\n"
        "    t = torch.randn(3, requires_grad=True)\n    CACHE.append(t)\n    return t",
        "w = make()",
        False,
    ),
    (
        "the argument handed back",
        "def make(t):\n    return t.requires_grad_()",
        "w = make(SHARED)",
        False,
    ),
    (
        "a helper that pretrains with backward",
        "def make():\n    t = torch.randn(3, requires_grad=True)\n"
        "    (t * 2).sum().backward()\n    return t",
        "w = make()",
        False,
    ),
    (
        "a name rebound by a loop",
        "def make(ts):\n    t = torch.randn(3, requires_grad=True)\n    for t in ts:\n"
        "        pass\n    return t",
        "w = make([SHARED])",
        False,
    ),
    (
        "a helper also bound to something else",
        ONE + "\nif CACHE:\n    new_weight = lambda: SHARED",
        "w = new_weight()",
        False,
    ),
    (
        "a generator",
        "def make():\n    yield torch.randn(3, requires_grad=True)",
        "w = next(make())",
        False,
    ),
]


@pytest.mark.parametrize(("title", "helper", "bind", "found"), CASES, ids=[c[0] for c in CASES])
def test_a_helper_returned_leaf_read_before_backward(
    title: str, helper: str, bind: str, found: bool
) -> None:
    source = textwrap.dedent(PROGRAM).format(helper=helper, bind=bind)
    findings = check_source(source, settings=Settings(select=("GG407",))).findings
    assert [(f.code, f.range.start.line) for f in findings] == (
        [("GG407", source.splitlines().index("        w.grad.zero_()"))] if found else []
    )
