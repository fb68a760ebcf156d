"""Lists an instance keeps for life and grows on every call of a method
(`gradguard.analysis.kept_histories`), and what lets such a method learn its arguments
from its callers (`call_sites.appended_on_self`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.call_sites import may_learn
from gradguard.analysis.imports import build_scope
from gradguard.analysis.kept_histories import (
    kept_list_class,
    kept_lists,
    looped_calls,
    may_feed_a_backward,
    runs_on_every_call,
)

CLASS = """
import torch

class Trainer:
    def __init__(self):
        self.history = []

    def log(self, losses):
        self.history.append(losses["loss"])

    def fit(self, batches):
{fit}

{other}
"""


def _parse(fit: str, other: str = "") -> tuple[ast.Module, ast.ClassDef]:
    source = CLASS.format(
        fit=textwrap.indent(textwrap.dedent(fit), " " * 8), other=textwrap.dedent(other)
    )
    tree = ast.parse(source)
    cls = next(node for node in tree.body if isinstance(node, ast.ClassDef))
    return tree, cls


def _kept(fit: str, other: str = "") -> frozenset[str]:
    tree, cls = _parse(fit, other)
    return kept_lists(tree, cls, build_scope(tree, None).resolve)


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef:
    return next(m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == name)


@pytest.mark.parametrize(
    "fit",
    [
        "for x in batches:\n    self.log(x)\nprint(len(self.history))",
        "for x in batches:\n    self.log(x)\ntorch.tensor(self.history[-1])",
    ],
)
def test_a_list_only_appended_to_and_read_is_kept(fit: str) -> None:
    assert _kept(fit) == {"history"}


@pytest.mark.parametrize(
    "fit",
    [
        # Emptied on every epoch.
        "for x in batches:\n    self.history = []\n    self.log(x)",
        "for x in batches:\n    self.log(x)\n    self.history.clear()",
        # A bounded window.
        "for x in batches:\n    self.log(x)\n    self.history.pop(0)",
        # Handed on: the caller may empty it.
        "for x in batches:\n    self.log(x)\nreturn self.history",
    ],
)
def test_a_list_emptied_rebound_or_handed_on_is_not_kept(fit: str) -> None:
    assert _kept(fit) == frozenset()


def test_a_store_of_the_name_elsewhere_in_the_file_counts() -> None:
    other = "class Other:\n    def reset(self):\n        self.history = []\n"
    assert _kept("for x in batches:\n    self.log(x)", other) == frozenset()


@pytest.mark.parametrize(
    ("fit", "looped"),
    [
        ("for x in batches:\n    self.log(x)", True),
        ("for x in batches:\n    self.log(self.step(x))", True),
        ("while True:\n    self.log(batches)", True),
        ("self.log(batches)", False),
        ("for x in batches:\n    if x:\n        self.log(x)", False),
        ("for x in batches:\n    if x is None:\n        continue\n    self.log(x)", False),
        ("for x in batches:\n    y = self.log(x)", False),
    ],
)
def test_a_call_straight_in_a_loop_body_runs_on_every_iteration(fit: str, looped: bool) -> None:
    tree, cls = _parse(fit)
    loops = looped_calls(tree, cls, _method(cls, "log"))
    assert bool(loops) is looped


@pytest.mark.parametrize(
    ("other", "looped"),
    [
        ("t = Trainer()\nfor x in data:\n    t.log(x)", True),
        ("def main(data):\n    t = Trainer()\n    for x in data:\n        t.log(x)", True),
        ("def main(data):\n    t = Trainer()\n    while True:\n        t.log(data)", True),
        # `t` may hold something else: bound twice, a parameter, a factory's result.
        ("t = Trainer()\nt = object()\nfor x in data:\n    t.log(x)", False),
        ("def main(t, data):\n    for x in data:\n        t.log(x)", False),
        ("def main(data):\n    t = make()\n    for x in data:\n        t.log(x)", False),
        (
            "t = Trainer()\ndef reset():\n    global t\n    t = 0\nfor x in data:\n    t.log(x)",
            False,
        ),
        # `Trainer` may not be the class: rebound in the function, or in the module.
        (
            "def main(data, Trainer=dict):\n    t = Trainer()\n"
            "    for x in data:\n        t.log(x)",
            False,
        ),
        ("Trainer = wrap(Trainer)\nt = Trainer()\nfor x in data:\n    t.log(x)", False),
        # Not on every iteration, or another method.
        ("t = Trainer()\nfor x in data:\n    if x:\n        t.log(x)", False),
        ("t = Trainer()\nfor x in data:\n    t.fit(x)", False),
        # A closure's name, bound in the enclosing function: not followed.
        (
            "def main(data):\n    t = Trainer()\n    def run():\n"
            "        for x in data:\n            t.log(x)",
            False,
        ),
    ],
)
def test_an_instance_of_the_class_stepped_by_an_outside_loop(other: str, looped: bool) -> None:
    tree, cls = _parse("pass", other)
    assert bool(looped_calls(tree, cls, _method(cls, "log"))) is looped


def test_a_statement_after_a_return_does_not_run_on_every_call() -> None:
    method = ast.parse(
        "def log(self, loss):\n    if loss is None:\n        return\n    self.h.append(loss)\n"
    ).body[0]
    assert isinstance(method, ast.FunctionDef)
    first, append = method.body
    assert runs_on_every_call(method, first)
    assert not runs_on_every_call(method, append)


@pytest.mark.parametrize(
    ("body", "learns"),
    [
        ('self.history.append(losses["loss"])', True),
        ("self.history.append(losses)", True),
        ("self.history.append(1.0)", False),
        ("self.history.append(self.last)", False),
    ],
)
def test_a_method_appending_an_argument_to_its_state_learns_from_callers(
    body: str, learns: bool
) -> None:
    method = ast.parse(f"def log(self, losses):\n    {body}\n").body[0]
    assert isinstance(method, ast.FunctionDef)
    assert may_learn(method, skip_self=True) is learns


def test_the_class_of_a_kept_list_is_found_from_its_method() -> None:
    tree, cls = _parse("for x in batches:\n    self.log(x)")
    assert kept_list_class(tree, _method(cls, "log"), "history") is cls
    assert kept_list_class(tree, _method(cls, "log"), "model") is None


@pytest.mark.parametrize(
    ("fit", "feeds"),
    [
        ("for x in batches:\n    self.log(x)\nprint(len(self.history))", False),
        # The kept losses summed and backpropagated on purpose.
        ("for x in batches:\n    self.log(x)\ntorch.stack(self.history).sum().backward()", True),
        # Handed to a caller, whose backward may run through it.
        ("for x in batches:\n    self.log(x)\nreturn sum(self.history)", True),
    ],
)
def test_code_reading_the_list_may_feed_a_backward(fit: str, feeds: bool) -> None:
    tree, cls = _parse(fit)
    fit_method = _method(cls, "fit")
    backward_scopes = {id(fit_method)} if "backward" in fit else set()
    assert may_feed_a_backward(tree, "history", backward_scopes) is feeds
