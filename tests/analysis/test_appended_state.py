"""Lists on `self` grown only by appends (`gradguard.analysis.appended_state`): which
attributes qualify, and what a read of one holds in another method."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.appended_state import appended_lists, appends_precede
from gradguard.analysis.events import Conversion
from gradguard.analysis.imports import build_scope
from gradguard.analysis.interpreter.statements import FunctionInterpreter
from gradguard.analysis.model import analyse_module
from gradguard.analysis.values import Grad, Kind
from gradguard.core.engine import check_source

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


def _method_and_read(body: str) -> tuple[ast.FunctionDef, ast.expr]:
    """The method `step` of `body` and its read of `self.log[...]`."""
    tree = ast.parse(textwrap.dedent(body))
    method = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    read = next(
        n
        for n in ast.walk(method)
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute)
    )
    return method, read


@pytest.mark.parametrize(
    ("body", "precede"),
    [
        ("def step(self, v):\n    self.log.append(v)\n    return self.log[-1]\n", True),
        ("def step(self, v):\n    return self.log[-1]\n", True),
        (
            "def step(self, vs):\n    for v in vs:\n        self.log.append(v)\n"
            "        w = self.log[-1]\n",
            True,
        ),
        ("def step(self, v):\n    w = self.log[-1]\n    self.log.append(v)\n", False),
        (
            "def step(self, vs):\n    for v in vs:\n        w = self.log[-1]\n"
            "        self.log.append(v)\n",
            False,
        ),
        ("def step(self, v):\n    self.log.append(self.log[-1])\n", False),
        (
            "def step(self, v):\n    keep = lambda u: self.log.append(u)\n    w = self.log[-1]\n",
            False,
        ),
        (
            "def step(self, v):\n    self.log.append(v)\n    other.log.append(v)\n"
            "    return self.log[0]\n",
            True,
        ),
    ],
)
def test_appends_precede_the_read_only_when_all_end_before_it(body: str, precede: bool) -> None:
    method, read = _method_and_read(body)
    assert appends_precede(method, "log", read) is precede


SELF_READ = """
import torch
from torch import nn

class Runner:
    def __init__(self):
        self.net = nn.Linear(3, 1)
        self.log = []
        self.seen = []

    def other(self, x):
        self.{target}.append(self.net(x).sum())

    def step(self, x):
        loss = self.net(x).sum()
        {first}
        return self.log[-1]

def run(x):
    runner = Runner()
    runner.other(x)
    runner.step(x).backward()
"""


@pytest.mark.parametrize(
    ("target", "first", "cut"),
    [
        ("seen", "self.log.append(loss.detach())", True),
        ("log", "self.log.append(loss.detach())", False),  # `other` appends a live loss
        ("seen", "self.log.append(loss)", False),
        ("seen", "self.log.append(loss.detach()); self.log.append(loss)", False),
    ],
)
def test_a_read_in_an_appending_method_joins_its_earlier_appends(
    target: str, first: str, cut: bool
) -> None:
    """`step` reads the list it appends to: the list holds what the class's other methods
    append and what `step` appended before the read."""
    source = SELF_READ.format(target=target, first=first)
    codes = [f.code for f in check_source(source).findings]
    assert ("GG103" in codes) is cut
