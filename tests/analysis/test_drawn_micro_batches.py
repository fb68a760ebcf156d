"""Draws alike (`drawn_lists`, `drawn_list`) and the windows they make, tested directly.

A list comprehension `[sample(gen) for _ in range(k)]` whose element never reads its target
holds k micro-batches drawn the same way: a helper looping over it (`handed_window`) or a
counted loop picking `drawn[j]` (`counted_window`) backpropagates k of them before one step.
Lists of modules, of outputs with history, of one item, or of items the target picks, are
no such lists. `scales_by` ignores arithmetic that is only compared, or only counts samples.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.accumulation import (
    counted_window,
    drawn_list,
    drawn_lists,
    handed_window,
    scales_by,
)
from gradguard.analysis.events import LoopTrips, RepeatedDraw
from gradguard.analysis.loop_entry import fewest_trips
from gradguard.analysis.model import ModuleAnalysis, analyse_module

PRELUDE = """
import torch
from torch import nn
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
def sample(gen):
    x = torch.randn(2, 4, generator=gen)
    return x, x.sum(1, keepdim=True)
"""


def _analysed(body: str) -> tuple[ast.Module, ModuleAnalysis]:
    source = PRELUDE + textwrap.dedent(body)
    tree = ast.parse(source)
    return tree, analyse_module(tree, source)


def _drawn_lines(body: str) -> list[int]:
    """Lines (counted from the body's first) of the comprehensions `drawn_lists` keeps."""
    _, analysis = _analysed(body)
    draws = drawn_lists(analysis.events.of(RepeatedDraw))
    offset = PRELUDE.count("\n")
    return sorted(d.node.lineno - offset for d in draws.values())  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("body", "lines"),
    [
        ("k = 3\ndrawn = [sample(None) for _ in range(k)]\n", [2]),
        ("drawn = [torch.randn(2, 4) for _ in range(2)]\n", [1]),
        # One item accumulates nothing; a count the analysis does not know is no count.
        ("drawn = [sample(None) for _ in range(1)]\n", []),
        ("def f(n):\n    return [sample(None) for _ in range(n)]\n", []),
        # Heads of a model and outputs with history are not data.
        ("heads = [nn.Linear(4, 1) for _ in range(3)]\n", []),
        ("x = torch.randn(2, 4)\nouts = [model(x) for _ in range(3)]\n", []),
        # The target picks the item (a task, a position): not draws alike.
        ("tasks = [torch.full((2,), t) for t in range(3)]\n", []),
    ],
)
def test_drawn_lists(body: str, lines: list[int]) -> None:
    assert _drawn_lines(body) == lines


def test_a_name_bound_once_to_draws_holds_them_and_a_rebound_one_does_not() -> None:
    body = """
    k = 2
    drawn = [sample(None) for _ in range(k)]
    again = [sample(None) for _ in range(k)]
    again = []
    """
    tree, analysis = _analysed(body)
    draws = drawn_lists(analysis.events.of(RepeatedDraw))
    assert drawn_list(tree, ast.Name("drawn"), draws) is not None
    assert drawn_list(tree, ast.Name("again"), draws) is None


HELPER = """
def backprop_all(model, batches):
    for x, y in batches:
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
"""


def _handed(body: str) -> tuple[int, int] | None:
    """(call, loop) lines of the window the last `optimizer.step()` of `train` closes."""
    tree, analysis = _analysed(body)
    draws = drawn_lists(analysis.events.of(RepeatedDraw))
    train = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "train")
    step = [s for s in ast.walk(train) if isinstance(s, ast.Expr) and "step" in ast.unparse(s)]
    _, block = analysis.block_of(step[-1])
    functions = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    window = handed_window(block, step[-1], train, functions.get, draws)  # type: ignore[arg-type]
    if window is None:
        return None
    offset = PRELUDE.count("\n")
    return window.stmt.lineno - offset, window.loop.lineno - offset


TRAIN = """
def train(gen):
    for _ in range(2):
        drawn = [sample(gen) for _ in range({k})]
        {call}
        {between}
        optimizer.step()
        optimizer.zero_grad()
"""


def test_a_helper_handed_draws_makes_a_window() -> None:
    body = HELPER + TRAIN.format(k=4, call="backprop_all(model, drawn)", between="pass")
    assert _handed(body) == (10, 3)


@pytest.mark.parametrize(
    ("helper", "k", "between"),
    [
        (HELPER, 1, "pass"),  # one micro-batch
        (HELPER, 4, "optimizer.zero_grad()"),  # cleared before the step
        # The helper steps itself; its loop's position picks something; it rebinds the list.
        (HELPER.replace("loss.backward()", "loss.backward()\n        optimizer.step()"), 4, ""),
        (
            HELPER.replace("for x, y in batches", "for i, (x, y) in enumerate(batches)").replace(
                ".mean()", ".mean() * i"
            ),
            4,
            "pass",
        ),
        (HELPER.replace("    for x", "    batches = batches[:1]\n    for x"), 4, "pass"),
    ],
)
def test_no_handed_window(helper: str, k: int, between: str) -> None:
    body = helper + TRAIN.format(k=k, call="backprop_all(model, drawn)", between=between)
    assert _handed(body) is None


def _counted(body: str) -> int | None:
    """The loop line of the counted window the last `optimizer.step()` of `train` closes."""
    tree, analysis = _analysed(body)
    draws = drawn_lists(analysis.events.of(RepeatedDraw))
    trips = analysis.events.of(LoopTrips)
    train = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "train")
    step = [s for s in ast.walk(train) if isinstance(s, ast.Expr) and "step" in ast.unparse(s)]
    _, block = analysis.block_of(step[-1])
    window = counted_window(
        block,
        step[-1],
        lambda loop: fewest_trips(trips, loop),
        lambda listed: drawn_list(train, listed, draws) is not None,
    )
    return None if window is None else window.loop.lineno - PRELUDE.count("\n")


PICKING = """
def train(gen):
    drawn = [sample(gen) for _ in range(3)]
    heads = [nn.Linear(4, 1) for _ in range(3)]
    for j in range(3):
        x, y = {picked}
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
    optimizer.step()
    optimizer.zero_grad()
"""


def test_a_counted_loop_picking_draws_makes_a_window() -> None:
    assert _counted(PICKING.format(picked="drawn[j]")) == 5


@pytest.mark.parametrize(
    "picked",
    ["heads[j](drawn[0][0]), drawn[0][1]", "drawn[j][0], drawn[j][1] * j", "drawn[j - 1]"],
)
def test_a_counted_loop_reading_its_target_otherwise_makes_no_window(picked: str) -> None:
    assert _counted(PICKING.format(picked=picked)) is None


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("ok = torch.allclose(acc, k * ref)\n", False),
        ("assert (loss / k) < 3\n", False),
        ("lr = base_lr / k\n", True),
        ("loss = loss / k\nassert torch.allclose(acc, k * ref)\n", True),
        # A call on the product is more than a comparison: it is not followed.
        ("assert (loss / k).item() < 3\n", True),
    ],
)
def test_scales_by_ignores_what_is_only_compared(code: str, expected: bool) -> None:
    assert scales_by(ast.parse(code), ast.Name("k")) is expected


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("n = bs * k * 2\nx = torch.randn(n, 3)\ny = torch.randint(0, 5, (n,))\n", False),
        ("big = bs * k\nsub = images[:big]\n", False),
        ("print(f'effective batch {bs * k}')\n", False),
        ("for i in range(bs * k):\n    pass\n", False),
        # Read as something else too, bound twice, or a learning rate: it may scale.
        ("n = bs * k\nx = torch.randn(n, 3)\nloss = loss / n\n", True),
        ("n = bs * k\nn = n + 1\nx = torch.randn(n)\n", True),
        ("lr = base_lr * bs * k / 256\n", True),
        ("x = torch.full((2,), bs * k)\n", True),
    ],
)
def test_scales_by_ignores_counts_of_samples(code: str, expected: bool) -> None:
    assert scales_by(ast.parse(code), ast.Name("k")) is expected
