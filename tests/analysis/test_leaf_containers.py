"""Loops over containers of fresh leaves (`analysis/leaf_containers.py`): a `.grad` read in
such a loop fails on the container's first element, in the function that made it or in a
helper it is handed to (`unfilled_grads`, `handed_leaves`). The look-alikes leave the read
unknown: a container whose first element may change, one not written out, a gradient tested
before the read, a backward before it."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.leaf_containers import changed_in, first_item, loop_container
from gradguard.analysis.model import analyse_module
from gradguard.analysis.unfilled_grads import unfilled_grad_reads


def _expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def _loop(text: str) -> ast.For:
    loop = ast.parse(text).body[0]
    assert isinstance(loop, ast.For)
    return loop


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("[a, b]", "a"),
        ("(a,)", "a"),
        ('{"w1": a, "w2": b}', "a"),
        ("[*rest, a]", None),
        ("{**more, 'w': a}", None),
        ("[]", None),
        ("make()", None),
    ],
)
def test_the_first_item_written_out(text: str, first: str | None) -> None:
    found = first_item(_expr(text))
    assert (ast.unparse(found) if found is not None else None) == first


@pytest.mark.parametrize(
    ("text", "container"),
    [
        ("for p in params: pass", "params"),
        ("for p in params.values(): pass", "params"),
        ("for name, p in params.items(): pass", "params"),
        ("for p in [w1, w2]: pass", "[w1, w2]"),
        ("for p, name in params.items(): pass", None),  # `p` is the key
        ("for p in params.values(1): pass", None),
        ("for p in sorted(params): pass", None),
        ("for q in params: pass", None),
    ],
)
def test_the_container_a_loop_walks(text: str, container: str | None) -> None:
    found = loop_container(_loop(text), "p")
    assert (ast.unparse(found) if found is not None else None) == container


@pytest.mark.parametrize(
    ("code", "changed"),
    [
        ("params.append(w3)", False),
        ("params.extend([w3])", False),
        ("print(params[0])", False),
        ("params[0] = w3", True),
        ("del params['w1']", True),
        ("params.insert(0, w3)", True),
        ("params.pop(0)", True),
        ("params.clear()", True),
        ("params.update(w1=w3)", True),
        ("params += [w3]", True),
        ("other[0] = w3", False),
    ],
)
def test_what_may_change_the_first_element(code: str, changed: bool) -> None:
    assert changed_in(ast.walk(ast.parse(code)), "params") is changed


def _read_lines(source: str) -> list[tuple[int, str]]:
    text = textwrap.dedent(source)
    tree = ast.parse(text)
    return [
        (read.use.stmt.lineno, read.created)
        for read in unfilled_grad_reads(analyse_module(tree, text))
    ]


_HELPERS = """
import torch

def make():
    w1 = torch.randn(3, requires_grad=True)
    w2 = torch.randn(3, requires_grad=True)
    return {"w1": w1, "w2": w2}

def clear(params):
    for p in params.values():
        p.grad.zero_()
"""


def test_a_dict_made_by_a_helper_handed_down_two_calls() -> None:
    source = (
        _HELPERS
        + "\ndef fit(params, data):\n    for x in data:\n        clear(params)\n"
        + "        (x * params['w1']).sum().backward()\n"
        + "\ndef main(data):\n    params = make()\n    fit(params, data)\n"
    )
    assert _read_lines(source) == [(11, "params")]


@pytest.mark.parametrize(
    "body",
    [
        # a backward first
        "    params = make()\n    (params['w1'] * 2).sum().backward()\n    clear(params)\n",
        # the first element replaced by one that has a gradient
        "    params = make()\n    params['w1'] = done\n    clear(params)\n",
        # a container of unknown content
        "    params = load()\n    clear(params)\n",
    ],
)
def test_a_handed_container_left_unknown(body: str) -> None:
    assert _read_lines(_HELPERS + "\ndef main(done, load):\n" + body) == []


def test_a_list_written_out_in_the_loop() -> None:
    source = """
    import torch

    def run(data):
        w1 = torch.randn(3, requires_grad=True)
        w2 = torch.randn(3, requires_grad=True)
        for x in data:
            for p in [w1, w2]:
                p.grad.zero_()
            (x * w1 * w2).sum().backward()
    """
    assert _read_lines(source) == [(9, "w1")]


@pytest.mark.parametrize(
    "guard",
    [
        "            if p.grad is None:\n                continue\n",
        "            assert p.grad is not None\n",
    ],
)
def test_a_gradient_tested_before_the_read(guard: str) -> None:
    source = (
        "import torch\n\ndef run(data):\n    w1 = torch.randn(3, requires_grad=True)\n"
        "    params = [w1]\n    for x in data:\n        for p in params:\n"
        + guard
        + "            p.grad.zero_()\n        (x * w1).sum().backward()\n"
    )
    assert _read_lines(source) == []
