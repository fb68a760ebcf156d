"""Local aliases in `ModeSwitches`: `model = self.model`, bound once, stands for
`self.model` in the function that binds it (a switch a callee makes through its alias reaches
its caller), and a caller with its own alias of the module sees the switch under that name.

No alias: a copy (`copy.deepcopy(self.model)`), a part (`self.model.module`), a name bound
twice, a module the function rebinds itself (`self.model = ...`).
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.grad_context import GradContext
from gradguard.analysis.mode_switches import ModeSwitches, local_aliases

_CALLER = """
class Trainer:
    def fit(self, batches):
        model = self.model
        for x in batches:
            model(x).sum().backward()
            self.evaluate()

    def evaluate(self):
{body}
"""


def _switched(body: str) -> list[tuple[str, str | None]]:
    """The (key, aliased) of every switch `fit`'s calls make, with `evaluate` as given."""
    source = textwrap.dedent(_CALLER).format(body=textwrap.indent(textwrap.dedent(body), " " * 8))
    tree = ast.parse(source)
    switches = ModeSwitches(tree, GradContext(tree).parents)
    fit = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "fit")
    return [(s.key, s.aliased) for s in switches.switches(fit)]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # The alias is the module: the caller sees the switch under its own alias.
        ("model = self.model\nmodel.eval()\n", [("model", "self.model")]),
        ("net = self.model\nnet.eval()\n", [("model", "self.model")]),
        ("self.model.eval()\n", [("model", "self.model")]),
        # A part of the module keeps its path below the alias.
        ("enc = self.model\nenc.encoder.eval()\n", [("model.encoder", "self.model.encoder")]),
        # Another attribute of self: not the caller's alias.
        ("ema = self.ema\nema.eval()\n", [("self.ema", None)]),
        # A copy, a part, a name bound twice, a rebound module: no alias, no switch seen.
        ("import copy\nmodel = copy.deepcopy(self.model)\nmodel.eval()\n", []),
        ("model = self.model.module\nmodel.eval()\n", []),
        ("model = self.model\nif self.ema:\n    model = self.ema\nmodel.eval()\n", []),
        ("model = self.model\nmodel.eval()\nself.model = None\n", []),
        ("model = self.model\nmodel.eval()\nsetattr(self, 'model', None)\n", []),
    ],
)
def test_a_callee_alias_reaches_the_caller(body: str, expected: list[tuple[str, str]]) -> None:
    assert _switched(body) == expected


def _aliases(source: str) -> dict[str, str]:
    tree = ast.parse(textwrap.dedent(source))
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    return local_aliases(function)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(self):\n    model = self.model\n", {"model": "self.model"}),
        ("def f(net):\n    model = net\n", {"model": "net"}),
        ("def f():\n    model = net\n", {"model": "net"}),
        # A parameter rebound, a global declared, a `*args` name, `self` not the first
        # parameter, an alias bound only in a branch: none.
        ("def f(net):\n    net = net.cpu()\n    model = net\n", {}),
        ("def f():\n    global net\n    model = net\n", {}),
        ("def f(*nets):\n    model = nets\n", {}),
        ("def f(other, self):\n    model = self.model\n", {}),
        ("def f(self, ok):\n    if ok:\n        model = self.model\n", {}),
        ("def f(self):\n    model = self.model\n    def g():\n        nonlocal model\n", {}),
    ],
)
def test_local_aliases(source: str, expected: dict[str, str]) -> None:
    assert _aliases(source) == expected
