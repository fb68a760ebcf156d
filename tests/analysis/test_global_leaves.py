"""`.grad` reads of the leaves a module global holds (`analysis/global_leaves.py`), the
concatenation of parameter lists (`leaf_containers.concatenated_parts`,
`list_members.joined_items`) and module-level `def`s on the way (`unfilled_grads`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.leaf_containers import concatenated_parts, grown_or_changed_in
from gradguard.analysis.list_members import joined_items
from gradguard.analysis.model import analyse_module
from gradguard.analysis.unfilled_grads import unfilled_grad_reads
from gradguard.analysis.values import Grad, Kind, Value

_HEAD = """
import torch
from torch import nn

enc = nn.Linear(3, 4)
dec = nn.Linear(4, 3)
enc_params = list(enc.parameters())
dec_params = list(dec.parameters())
params = enc_params + dec_params

def clear():
    for p in params:
        p.grad.zero_()
"""


def _reads(source: str) -> list[tuple[int, str, int | None]]:
    text = textwrap.dedent(source)
    tree = ast.parse(text)
    return [
        (read.use.stmt.lineno, read.created, read.loop.lineno if read.loop else None)
        for read in unfilled_grad_reads(analyse_module(tree, text))
    ]


def test_a_global_list_cleared_at_the_top_of_the_first_iteration() -> None:
    source = (
        _HEAD
        + """
def train(steps):
    for step in range(steps):
        clear()
        dec(enc(torch.randn(2, 3))).sum().backward()
        clear()

if __name__ == "__main__":
    try:
        train(3)
    except KeyboardInterrupt:
        pass
"""
    )
    assert _reads(source) == [(13, "enc", 16)]


def test_a_global_list_cleared_by_a_module_level_call() -> None:
    assert _reads(_HEAD + "\nclear()\n") == [(13, "enc", None)]


@pytest.mark.parametrize(
    "tail",
    [
        # Only called after a backward.
        """
def train(steps):
    for step in range(steps):
        dec(enc(torch.randn(2, 3))).sum().backward()
        clear()

train(3)
""",
        # Never called.
        "\n",
        # A backward at module level before the first call.
        """
dec(enc(torch.randn(2, 3))).sum().backward()
clear()
""",
        # A helper the analysis cannot see runs first.
        """
import somewhere
somewhere.warm_up(enc, dec)
clear()
""",
        # The list grows elsewhere: its elements are not all known.
        """
def extend(extra):
    params.append(extra)

clear()
""",
        # The call is guarded by the handler, not run in the try body.
        """
try:
    pass
except ValueError:
    clear()
""",
    ],
)
def test_no_certain_first_call(tail: str) -> None:
    assert _reads(_HEAD + tail) == []


def test_a_list_rebound_in_a_function_is_not_the_global() -> None:
    source = _HEAD.replace("    for p in params:", "    params = []\n    for p in params:")
    assert _reads(source + "\nclear()\n") == []


def test_a_def_on_the_way_does_not_run_its_body() -> None:
    source = """
import torch
w = torch.randn(3, requires_grad=True)

def step():
    (w * 2).sum().backward()

w.grad.zero_()
"""
    assert _reads(source) == [(8, "w", None)]


def test_concatenated_parts() -> None:
    parts = concatenated_parts(ast.parse("a + list(b.parameters()) + c", mode="eval").body)
    assert parts is not None and [ast.unparse(p) for p in parts] == [
        "a",
        "list(b.parameters())",
        "c",
    ]
    assert concatenated_parts(ast.parse("a + [w]", mode="eval").body) is None
    assert concatenated_parts(ast.parse("a * b", mode="eval").body) is None


def test_grown_or_changed_in() -> None:
    def changed(code: str) -> bool:
        return grown_or_changed_in(ast.walk(ast.parse(code)), "xs")

    assert changed("xs.append(1)") and changed("xs.extend(ys)") and changed("xs[0] = 1")
    assert not changed("for x in xs: print(x)") and not changed("ys.append(xs)")


def test_joined_items() -> None:
    leaf = Value(Grad.TRACKED, Kind.TENSOR, leaf=True)
    listed = Value(kind=Kind.SEQUENCE, items=leaf)
    joined = joined_items(listed, listed)
    assert joined is not None and joined.items is not None
    assert joined.items.kind is Kind.TENSOR and joined.items.leaf is True
    both = joined_items(listed, Value(kind=Kind.SEQUENCE, elements=(leaf,)))
    assert both is not None and both.items is not None and both.items.kind is Kind.TENSOR
    assert joined_items(listed, Value(kind=Kind.UNKNOWN)) is None
    assert joined_items(Value(kind=Kind.SEQUENCE, elements=(leaf,)), listed) is not None
    assert joined_items(Value(kind=Kind.SEQUENCE), Value(kind=Kind.SEQUENCE)) is None
