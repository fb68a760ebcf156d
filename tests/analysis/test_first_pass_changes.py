"""An in-place change on the first pass of a loop that certainly runs changes what the
carried name held before the loop (`GraphEffects._as_on_first_pass`): a backward through a
node that kept that tensor runs through a changed node."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module


def _modified(body: str) -> bool:
    """Whether the backward call at the end of `body` runs through a changed node."""
    source = "import torch\nw = torch.randn(4, requires_grad=True)\n" + textwrap.dedent(body)
    calls = analyse_module(ast.parse(source), source).backward_calls
    assert len(calls) == 1
    return bool(calls[0].through_modified)


@pytest.mark.parametrize(
    "body",
    [
        """\
        gate = torch.sigmoid(w)
        for _ in range(2):
            gate.mul_(0.5)
            gate = torch.sigmoid(gate)
        gate.sum().backward()
        """,
        """\
        h = torch.tanh(w)
        for k in [1, 2]:
            h += k
            h = torch.tanh(h)
        h.sum().backward()
        """,
    ],
)
def test_the_first_pass_changes_what_the_name_held_before_the_loop(body: str) -> None:
    assert _modified(body)


@pytest.mark.parametrize(
    "body",
    [
        # the loop may not run
        """\
        gate = torch.sigmoid(w)
        for _ in range(n):
            gate.mul_(0.5)
            gate = torch.sigmoid(gate)
        gate.sum().backward()
        """,
        # the name is rebound before the change on every pass
        """\
        gate = torch.sigmoid(w)
        for _ in range(2):
            gate = gate * 2
            gate.add_(1.0)
        gate.sum().backward()
        """,
        # the change runs on some passes only
        """\
        gate = torch.sigmoid(w)
        for step in range(3):
            if w.sum() > step:
                gate.mul_(0.5)
            gate = torch.sigmoid(gate)
        gate.sum().backward()
        """,
        # nothing kept the tensor held before the loop
        """\
        gate = w + 1.0
        for _ in range(2):
            gate.mul_(0.5)
            gate = torch.sigmoid(gate)
        gate.sum().backward()
        """,
        # a while loop is not known to run
        """\
        gate = torch.sigmoid(w)
        while gate.sum() > 1:
            gate.mul_(0.5)
            gate = torch.sigmoid(gate)
        gate.sum().backward()
        """,
    ],
)
def test_no_first_pass_change_of_a_kept_tensor(body: str) -> None:
    assert not _modified(body)
