"""`stacked_lists.stacking_calls`: a loop filling a list that starts empty, which a later
statement hands to `torch.stack`/`torch.cat` (raising on an empty list), certainly ran on
every path that goes on past that call; and the interpreter's use of it (the loop leaves
only through its body)."""

from __future__ import annotations

import ast
import textwrap

import pytest
import torch

from gradguard.analysis import torch_api as api
from gradguard.analysis.model import analyse_module
from gradguard.analysis.stacked_lists import stacking_calls
from gradguard.analysis.values import Kind


def _stacked(body: str) -> list[str]:
    """The calls `stacking_calls` gives for the loops of `def f(...)`, as source text."""
    source = "def f(x, n, steps, cell, flag):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)
    return [ast.unparse(c) for calls in stacking_calls(function).values() for c in calls]


@pytest.mark.parametrize(
    ("body", "calls"),
    [
        # The decoder shape: filled by the loop, stacked right after it.
        (
            """
            outs = []
            for t in range(steps):
                x = cell(x)
                outs.append(x)
            return torch.stack(outs, dim=1)
            """,
            ["torch.stack(outs, dim=1)"],
        ),
        # Other statements may stand between, if they neither mention the list nor leave.
        (
            """
            outs = []
            h = x
            for t in range(steps):
                h = cell(h)
                outs.append(h)
            last = h
            y = self.head(torch.cat(outs, 1)).mean()
            """,
            ["torch.cat(outs, 1)"],
        ),
        # The loop may sit in an `if` or another loop, the list with it.
        (
            """
            if flag:
                outs = []
                for t in range(steps):
                    outs.append(cell(x))
                x = torch.stack(outs).sum(0)
            """,
            ["torch.stack(outs)"],
        ),
        # Under a torch context manager.
        (
            """
            with torch.no_grad():
                outs = []
                for t in range(steps):
                    outs.append(cell(x))
                y = torch.stack(outs)
            """,
            ["torch.stack(outs)"],
        ),
        # Not in a `try` (a handler goes on after the failed call).
        (
            """
            try:
                outs = []
                for t in range(steps):
                    outs.append(cell(x))
                y = torch.stack(outs)
            except RuntimeError:
                y = x
            """,
            [],
        ),
        # Not under a manager that may swallow the error.
        (
            """
            with contextlib.suppress(RuntimeError):
                outs = []
                for t in range(steps):
                    outs.append(cell(x))
                y = torch.stack(outs)
            """,
            [],
        ),
        # The list is not empty to start with, or is filled before the loop.
        (
            """
            outs = [x]
            for t in range(steps):
                outs.append(cell(x))
            y = torch.stack(outs)
            """,
            [],
        ),
        (
            """
            outs = []
            outs.append(x)
            for t in range(steps):
                outs.append(cell(x))
            y = torch.stack(outs)
            """,
            [],
        ),
        # Filled after the loop, before the call.
        (
            """
            outs = []
            for t in range(steps):
                outs.append(cell(x))
            outs.append(x)
            y = torch.stack(outs)
            """,
            [],
        ),
        # A statement between may leave without reaching the call.
        (
            """
            outs = []
            for t in range(steps):
                outs.append(cell(x))
            if n == 0:
                return x
            y = torch.stack(outs)
            """,
            [],
        ),
        # The loop's `else` runs on zero trips too.
        (
            """
            outs = []
            for t in range(steps):
                outs.append(cell(x))
            else:
                outs.append(x)
            y = torch.stack(outs)
            """,
            [],
        ),
        # The call is not certainly made.
        (
            """
            outs = []
            for t in range(steps):
                outs.append(cell(x))
            y = torch.stack(outs) if outs else x
            """,
            [],
        ),
        (
            """
            outs = []
            for t in range(steps):
                outs.append(cell(x))
            y = outs and torch.stack(outs)
            """,
            [],
        ),
        # The statement mentions the list twice: something may fill it before the call.
        (
            """
            outs = []
            for t in range(steps):
                outs.append(cell(x))
            y = (fill(outs), torch.stack(outs))
            """,
            [],
        ),
        # A closure may fill the list.
        (
            """
            outs = []
            keep = lambda v: outs.append(v)
            for t in range(steps):
                keep(cell(x))
            y = torch.stack(outs)
            """,
            [],
        ),
        # The loop iterates the list itself; its body never fills it.
        (
            """
            outs = []
            for t in outs:
                x = cell(x)
            y = torch.stack(outs)
            """,
            [],
        ),
        (
            """
            outs = []
            for t in range(steps):
                x = cell(x)
            y = torch.stack(outs)
            """,
            [],
        ),
    ],
)
def test_stacking_calls(body: str, calls: list[str]) -> None:
    assert _stacked(body) == calls


@pytest.mark.parametrize("join", sorted(api.EMPTY_LIST_RAISES))
def test_joining_an_empty_list_raises(join: str) -> None:
    """The table's claim, checked against the installed torch."""
    function = getattr(torch, join.removeprefix("torch."))
    with pytest.raises((RuntimeError, ValueError)):
        function([])


def _kinds(source: str) -> dict[str, Kind]:
    """The kind of the value each function's backward runs on."""
    source = textwrap.dedent(source)
    calls = analyse_module(ast.parse(source), source).backward_calls
    return {c.function.name: c.value.kind for c in calls if c.function is not None}


def test_a_loop_whose_list_is_stacked_leaves_only_through_its_body() -> None:
    """`out` is a tensor after the loop only if the loop ran: it did when the list it fills
    was stacked, not when the stacking was guarded or done by a function of the file."""
    kinds = _kinds(
        """
        import torch
        from torch import nn


        def stack(parts):
            return parts


        def stacked(x, n):
            m = nn.Linear(2, 2)
            out = None
            outs = []
            for _ in range(n):
                out = m(x)
                outs.append(out)
            y = torch.stack(outs)
            out.sum().backward()


        def guarded(x, n):
            m = nn.Linear(2, 2)
            out = None
            outs = []
            for _ in range(n):
                out = m(x)
                outs.append(out)
            y = torch.stack(outs) if outs else x
            out.sum().backward()


        def own_stack(x, n):
            m = nn.Linear(2, 2)
            out = None
            outs = []
            for _ in range(n):
                out = m(x)
                outs.append(out)
            y = stack(outs)
            out.sum().backward()


        def summed(x, n):
            m = nn.Linear(2, 2)
            out = None
            outs = []
            for _ in range(n):
                out = m(x)
                outs.append(out)
            y = sum(outs)
            out.sum().backward()
        """
    )
    assert kinds["stacked"] is Kind.TENSOR
    assert kinds["guarded"] is not Kind.TENSOR
    assert kinds["own_stack"] is not Kind.TENSOR
    assert kinds["summed"] is not Kind.TENSOR  # sum([]) is 0: no error
