"""Lists on `self` grown only by appends (`gradguard.analysis.appended_state`): which
attributes qualify, and what a read of one holds in another method."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.appended_state import appended_lists
from gradguard.analysis.events import Conversion
from gradguard.analysis.imports import build_scope
from gradguard.analysis.interpreter.statements import FunctionInterpreter
from gradguard.analysis.model import analyse_module
from gradguard.analysis.values import Grad, Kind

CLASS = """
import numpy as np
import torch
from torch import nn

class Agent:
    def __init__(self):
        self.net = nn.Linear(3, 1)
        self.history = []

    def learn(self, x):
        loss = self.net(x).sum()
        loss.backward()
        self.history.append({appended})

    def report(self):
        {report}
"""


def _qualifying(appended: str = "loss", report: str = "print(len(self.history))") -> set[str]:
    source = textwrap.dedent(CLASS).format(appended=appended, report=report)
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    scope = build_scope(tree, None)
    return set(appended_lists(tree, cls, scope.resolve))


@pytest.mark.parametrize(
    "report",
    [
        "print(len(self.history))",
        "return np.mean(self.history[-10:])",
        "for loss in self.history: print(loss)",
        "if not self.history: return None",
        "self.history.clear()",
        "self.history = []",
        "last = self.history.pop()",
        "return f'{self.history}'",
    ],
)
def test_reads_and_resets_keep_the_list_known(report: str) -> None:
    assert _qualifying(report=report) == {"history"}


@pytest.mark.parametrize(
    "report",
    [
        "return self.history",  # the caller may change it
        "kept = self.history",  # an alias may grow behind the analysis' back
        "self.history.extend(range(3))",
        "self.history += [1.0]",
        "self.history[0] = 1.0",
        "del self.history[:]",
        "self.history = self.history[-100:]",
        "save(self.history)",  # an unknown function may keep or change it
        "getattr(self, 'history').append(1.0)",
    ],
)
def test_anything_that_may_change_the_list_disqualifies_it(report: str) -> None:
    assert _qualifying(report=report) == set()


def test_a_mention_elsewhere_in_the_file_disqualifies_it() -> None:
    source = textwrap.dedent(CLASS).format(appended="loss", report="pass")
    source += "\nagent = Agent()\nagent.history.append(0.0)\n"
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    assert appended_lists(tree, cls, build_scope(tree, None).resolve) == {}


def test_an_append_through_an_instance_in_a_function_qualifies_it() -> None:
    """`agent.history.append(x)` inside a function: that function's appends join the list's
    items (at module level, no summary holds them: see the test above)."""
    source = textwrap.dedent(CLASS).format(appended="loss", report="pass")
    source += "\ndef record(agent, x):\n    agent.history.append(x)\n"
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    found = appended_lists(tree, cls, build_scope(tree, None).resolve)
    assert sorted(f.name for f in found["history"]) == ["learn", "record"]


def _items_converted(appended: str, bases: str = "") -> list[tuple[Grad, Kind]]:
    """The items numpy converts in `report()`, from what `learn()` appends."""
    source = textwrap.dedent(CLASS).format(appended=appended, report="return np.mean(self.history)")
    source = source.replace("class Agent:", f"class Agent{bases}:")
    events = analyse_module(ast.parse(source), source).events
    return [
        (c.value.grad, c.value.kind) for c in events.of(Conversion) if c.method == "array-items"
    ]


@pytest.mark.parametrize(
    ("appended", "bases", "converted"),
    [
        ("loss", "", [(Grad.TRACKED, Kind.TENSOR)]),
        ("loss", "(nn.Module)", [(Grad.TRACKED, Kind.TENSOR)]),
        ("loss", "(object)", [(Grad.TRACKED, Kind.TENSOR)]),
        ("loss.item()", "", []),
        ("loss.detach()", "", []),
        ("x", "", []),  # unknown: silent
        ("loss", "(Base)", []),  # a base class of another file may change the list
    ],
)
def test_a_read_holds_what_the_appends_append(
    appended: str, bases: str, converted: list[tuple[Grad, Kind]]
) -> None:
    assert _items_converted(appended, bases) == converted


BUFFER = """
import torch
from torch import nn

class Buffer:
    def __init__(self):
        self.log_probs, self.values = [], {init}

    def add(self, log_prob, value):
        self.log_probs.append(log_prob)
        self.values.append(value.detach())

buffer = Buffer()
buffer.add(torch.zeros(()), nn.Linear(2, 1)(torch.ones(2)))
stacked = torch.stack(buffer.values)
"""


@pytest.mark.parametrize(("init", "qualifies"), [("[]", True), ("[0]", False)])
def test_lists_reset_by_an_unpacking_qualify(init: str, qualifies: bool) -> None:
    """`self.log_probs, self.values = [], []` resets both lists, as two statements would."""
    tree = ast.parse(BUFFER.format(init=init))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    found = set(appended_lists(tree, cls, build_scope(tree, None).resolve))
    assert found == ({"log_probs", "values"} if qualifies else {"log_probs"})


@pytest.mark.parametrize(("init", "grad"), [("[]", Grad.UNTRACKED), ("[0]", Grad.UNKNOWN)])
def test_a_list_read_through_an_instance_holds_what_is_appended(
    init: str, grad: Grad, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`buffer.values` outside the class holds at most what `add` appends (detached)."""
    source = BUFFER.format(init=init)
    seen: list[Grad] = []
    original = FunctionInterpreter.run_stmt

    def recording(self: FunctionInterpreter, stmt: ast.stmt) -> None:
        original(self, stmt)
        if self.env is not None and "stacked" in self.env:
            seen.append(self.env["stacked"].grad)

    monkeypatch.setattr(FunctionInterpreter, "run_stmt", recording)
    analyse_module(ast.parse(source), source)
    assert seen and seen[-1] is grad
