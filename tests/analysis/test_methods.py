"""Which method an instance of a class of the file runs (`interpreter/methods.py`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.interpreter.methods import class_methods, inherited_method
from gradguard.analysis.interpreter.module import ModuleInterpreter
from gradguard.analysis.model import ModuleAnalysis

CLASSES = """
import torch
from torch import nn

class Base(nn.Module):
    def forward(self, x):
        return x

    def step(self):
        pass

class Child(Base):
    def __init__(self):
        super().__init__()

class GrandChild(Child):
    pass

class Mixed(Helper, Base):
    pass

class External(nn.Linear):
    pass

Rebound = Base
class FromRebound(Rebound):
    pass

class Twice(Base):
    pass
Twice = Child
class FromTwice(Twice):
    pass
"""


def _lookup(owner: str, name: str) -> str | None:
    text = textwrap.dedent(CLASSES)
    tree = ast.parse(text)
    module = ModuleInterpreter(tree, ModuleAnalysis(tree), text)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner)
    found = inherited_method(module, cls, name)
    if found is None:
        return None
    defining = next(
        c.name for c in tree.body if isinstance(c, ast.ClassDef) and any(s is found for s in c.body)
    )
    return f"{defining}.{found.name}"


@pytest.mark.parametrize(
    ("owner", "name", "expected"),
    [
        ("Child", "forward", "Base.forward"),
        ("GrandChild", "step", "Base.step"),
        ("Child", "missing", None),
        # Several bases, or a base of another file first: Python's order may find it there.
        ("Mixed", "forward", None),
        ("External", "forward", None),
        # A base name bound more than once, or to something else than a class statement.
        ("FromRebound", "forward", None),
        ("FromTwice", "forward", None),
    ],
)
def test_the_method_an_instance_inherits(owner: str, name: str, expected: str | None) -> None:
    assert _lookup(owner, name) == expected


def test_a_later_definition_replaces_an_earlier_one() -> None:
    tree = ast.parse(
        textwrap.dedent(
            """
            class Net(nn.Module):
                def forward(self, x):
                    return x

                def forward(self, x):
                    return x.detach()
            """
        )
    )
    owner = tree.body[0]
    assert isinstance(owner, ast.ClassDef)
    assert class_methods(owner)["forward"] is owner.body[1]
