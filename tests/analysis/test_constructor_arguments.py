"""A module handed to a class's constructor and stored on `self` (`constructor_arguments`,
used by `parameter_iterators` to know `self.model` holds a torch module)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module
from gradguard.analysis.name_flow import NameFlow
from gradguard.analysis.parameter_iterators import ReusedIterator, reused_iterators

HEADER = "import torch\nfrom torch import nn\n"

HOLDER = """
class Holder:
    def __init__(self, name, model, scale=1.0):
        self.model = model

    def twice(self):
        ps = self.model.parameters()
        first = list(ps)
        return first, list(ps)
"""


def _found(body: str) -> list[ReusedIterator]:
    text = HEADER + textwrap.dedent(body)
    tree = ast.parse(text)
    return reused_iterators(analyse_module(tree, text), lambda: NameFlow(tree))


@pytest.mark.parametrize(
    "construction",
    [
        "Holder('a', nn.Linear(4, 2))",
        "Holder('a', model=nn.Linear(4, 2).to('cpu'))",
        "net = nn.Linear(4, 2)\nHolder('a', net)\nHolder(name='b', model=nn.GRU(3, 3))",
    ],
    ids=["positional", "keyword", "name-and-two-calls"],
)
def test_every_construction_passing_a_module_makes_the_attribute_one(construction: str) -> None:
    [found] = _found(HOLDER + construction + "\n")
    assert found.name == "ps" and found.second.consumer == "list()"


@pytest.mark.parametrize(
    "construction",
    [
        # One construction passes something not known to be a module.
        "Holder('a', nn.Linear(4, 2))\ndef make(m):\n    return Holder('b', m)\n",
        # No construction at all, or the argument left to a default.
        "",
        # The class handed on: some construction is not seen.
        "Holder('a', nn.Linear(4, 2))\nfactory = Holder\n",
        # Subclassed: the subclass may construct it otherwise.
        "Holder('a', nn.Linear(4, 2))\nclass Sub(Holder):\n    pass\n",
        # Unpacked arguments.
        "args = ('a', nn.Linear(4, 2))\nHolder(*args)\n",
        # Another instance built through `__class__`.
        "h = Holder('a', nn.Linear(4, 2))\nh.__class__('b', [])\n",
        # Stored in another class too, from a list.
        "Holder('a', nn.Linear(4, 2))\nclass Other:\n    def __init__(self):\n"
        "        self.model = []\n",
    ],
    ids=["unknown", "none", "handed-on", "subclassed", "unpacked", "dunder-class", "other-store"],
)
def test_unseen_or_unknown_constructions_are_silent(construction: str) -> None:
    assert _found(HOLDER + construction) == []


def test_a_parameter_re_bound_in_init_is_silent() -> None:
    body = HOLDER.replace("self.model = model", "model = [model]\n        self.model = model")
    assert _found(body + "Holder('a', nn.Linear(4, 2))\n") == []


def test_a_store_outside_init_is_silent() -> None:
    body = HOLDER.replace("__init__", "setup")
    assert _found(body + "Holder().setup('a', nn.Linear(4, 2))\n") == []


def test_a_module_class_redefining_parameters_is_silent() -> None:
    listed = (
        "class Listed(nn.Module):\n    def parameters(self, recurse=True):\n"
        "        return list(super().parameters(recurse))\n"
    )
    assert _found(HOLDER + listed + "Holder('a', Listed())\n") == []
