"""`loop_window` and `rescales_grad` of `gradguard.analysis.accumulation`, tested directly.

A window is `zero_grad()`, then a loop backpropagating over the micro-batches the
function's only caller gathered from a loader, then one `step()`, in one function's body.
Loops over anything else (tasks, heads, loss terms, pieces of one batch) are no window.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.accumulation import batch_appends, loop_window, rescales_grad
from gradguard.analysis.events import Append
from gradguard.analysis.model import analyse_module

TRAIN_STEP = """
def train_step(model, optimizer, samples):
    optimizer.zero_grad()
    for x, y in samples:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
    {between}
    optimizer.step()
"""
GATHERING_CALLER = """
def fit(model, optimizer, train_loader, k):
    buffer = []
    for batch in train_loader:
        buffer.append(batch)
        if len(buffer) == k:
            train_step(model, optimizer, buffer)
            buffer = []
"""


def _window(source: str) -> tuple[int, int, int] | None:
    """(cleared, loop, step) lines of the window the last `.step()` statement of
    `train_step` closes, or None."""
    text = textwrap.dedent(source)
    tree = ast.parse(text)
    appended = batch_appends(analyse_module(tree, text).events.of(Append))
    function = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "train_step"
    )
    step = [
        s
        for s in function.body
        if isinstance(s, ast.Expr)
        and isinstance(s.value, ast.Call)
        and isinstance(s.value.func, ast.Attribute)
        and s.value.func.attr == "step"
    ][-1]
    window = loop_window(function, step, tree, appended)
    if window is None:
        return None
    return window.cleared.lineno, window.loop.lineno, window.step.lineno


def test_micro_batches_gathered_from_a_loader_make_a_window() -> None:
    assert _window(TRAIN_STEP.format(between="pass") + GATHERING_CALLER) == (3, 4, 8)


def test_a_method_called_on_self_with_gathered_batches_makes_a_window() -> None:
    source = """
    class Trainer:
        def train_step(self, samples):
            self.optimizer.zero_grad()
            for x, y in samples:
                self.criterion(self.model(x), y).backward()
            self.optimizer.step()

        def epoch(self, loader):
            pending = []
            for i, batch in enumerate(loader):
                pending.append(batch)
                if len(pending) == 4:
                    self.train_step(pending)
                    pending = []
    """
    assert _window(source) == (4, 5, 7)


@pytest.mark.parametrize(
    ("case", "caller"),
    [
        # The tasks of one batch, each a loss of its own: their sum is the objective.
        (
            "tasks of one batch",
            "def fit(model, optimizer, train_loader):\n"
            "    for batch in train_loader:\n"
            "        train_step(model, optimizer, [batch['a'], batch['b']])\n",
        ),
        # A list not built from a loader's batches.
        (
            "pairs built from a dataset",
            "def fit(model, optimizer, dataset):\n"
            "    tasks = []\n"
            "    for pair in dataset:\n"
            "        tasks.append(pair)\n"
            "    train_step(model, optimizer, tasks)\n",
        ),
        # Called twice: what the parameter holds is not known from one caller.
        (
            "two callers",
            GATHERING_CALLER + "\ntrain_step(None, None, [])\n",
        ),
    ],
)
def test_lists_other_than_gathered_batches_make_no_window(case: str, caller: str) -> None:
    assert _window(TRAIN_STEP.format(between="pass") + caller) is None, case


def test_pieces_of_one_batch_make_no_window() -> None:
    source = """
    def train_step(model, optimizer, x, y):
        optimizer.zero_grad()
        for xc, yc in zip(x.split(35, dim=1), y.split(35, dim=1)):
            F.cross_entropy(model(xc), yc).backward()
        optimizer.step()

    def fit(model, optimizer, train_loader):
        for x, y in train_loader:
            train_step(model, optimizer, x, y)
    """
    assert _window(source) is None


@pytest.mark.parametrize(
    "between",
    [
        "optimizer.zero_grad()",  # cleared after the loop: nothing accumulates into the step
        "model.weight.grad = None",
        "model.weight.grad /= len(samples)",  # averaged: the step applies a mean
    ],
)
def test_gradients_cleared_between_the_loop_and_the_step_close_no_window(between: str) -> None:
    assert _window(TRAIN_STEP.format(between=between) + GATHERING_CALLER) is None


def test_a_rescaling_loop_between_the_loop_and_the_step_is_not_the_window() -> None:
    between = "for p in model.parameters():\n        p.grad.div_(len(samples))"
    assert _window(TRAIN_STEP.format(between=between) + GATHERING_CALLER) == (3, 4, 9)


def test_no_zero_grad_before_the_loop_makes_no_window() -> None:
    source = TRAIN_STEP.format(between="pass").replace("optimizer.zero_grad()", "pass")
    assert _window(source + GATHERING_CALLER) is None


def test_a_step_inside_the_loop_makes_no_window() -> None:
    source = TRAIN_STEP.format(between="pass").replace(
        "loss.backward()", "loss.backward()\n        optimizer.step()"
    )
    assert _window(source + GATHERING_CALLER) is None


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("for p in model.parameters():\n    p.grad /= n\n", True),
        ("for p in model.parameters():\n    p.grad.data.div_(n)\n", True),
        ("for p in model.parameters():\n    p.grad = p.grad / n\n", True),
        ("for p in model.parameters():\n    p.grad.mul_(scale)\n", True),
        # Reading, clearing or clipping a gradient rescales nothing by a count.
        ("norm = sum(p.grad.norm() for p in model.parameters())\n", False),
        ("for p in model.parameters():\n    p.grad = None\n", False),
        ("loss = loss / n\n", False),
    ],
)
def test_rescales_grad(code: str, expected: bool) -> None:
    assert rescales_grad(ast.parse(code)) is expected


@pytest.mark.parametrize(
    ("case", "caller", "window"),
    [
        # A loader of the file, whatever its name: its items are batches (`Value.batch`).
        (
            "a DataLoader named dl",
            "def fit(model, optimizer, ds, k):\n"
            "    dl = DataLoader(ds, batch_size=8)\n"
            "    buffer = []\n"
            "    for i, batch in enumerate(dl):\n"
            "        buffer.append(batch)\n"
            "        if len(buffer) == k:\n"
            "            train_step(model, optimizer, buffer)\n"
            "            buffer = []\n",
            True,
        ),
        (
            "batches drawn with next()",
            "def fit(model, optimizer, ds, k):\n"
            "    train_iter = iter(DataLoader(ds))\n"
            "    buffer = []\n"
            "    while True:\n"
            "        buffer.append(next(train_iter))\n"
            "        if len(buffer) == k:\n"
            "            train_step(model, optimizer, buffer)\n"
            "            buffer = []\n",
            True,
        ),
        # A list of strings named like a loader holds no batches.
        (
            "names of loaders",
            "def fit(model, optimizer, k):\n"
            "    loader_names = ['train', 'val']\n"
            "    buffer = []\n"
            "    for name in loader_names:\n"
            "        buffer.append(name)\n"
            "        train_step(model, optimizer, buffer)\n",
            False,
        ),
    ],
)
def test_gathered_batches_are_known_by_the_batch_fact(case: str, caller: str, window: bool) -> None:
    source = "from torch.utils.data import DataLoader\n" + TRAIN_STEP.format(between="pass")
    assert (_window(source + caller) is not None) is window, case
