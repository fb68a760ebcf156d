"""Which parameters a function certainly changes in place (`changed_arguments`): only a
write of the body's straight line, before anything may leave the function, into the
parameter itself (never re-bound) or a local bound once to exactly it."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.changed_arguments import changed_parameters

CASES = [
    ("slice assignment", "x[:, 0] = 0.0", {"x"}),
    ("through an alias", "out = x\nout[0] = y", {"x"}),
    ("augmented", "x += y", {"x"}),
    ("augmented slice", "x[0] *= 2", {"x"}),
    ("in-place method", "x.clamp_(-1, 1)", {"x"}),
    ("chained and returned", "return x.clamp_(-1, 1).add_(1).mul_(0.5)", {"x"}),
    ("assigned from an in-place chain", "z = y.add_(1).mul(2)\nreturn z", {"y"}),
    ("inside a with block", "with torch.no_grad():\n    y.zero_()", {"y"}),
    ("both parameters", "x.add_(1)\ny.sub_(1)", {"x", "y"}),
    # Look-alikes: not certain, not the parameter, or no data written.
    ("under an if", "if flag:\n    x.add_(1)", set()),
    ("after an early return", "if flag:\n    return x\nx.add_(1)", set()),
    ("in a loop", "for _ in range(2):\n    x.add_(1)", set()),
    ("the parameter re-bound first", "x = x.clone()\nx[0] = 0.0", set()),
    ("an alias bound twice", "out = x\nout = y\nout[0] = 0.0", set()),
    ("a copy", "out = x.clone()\nout[0] = 0.0", set()),
    ("an attribute of it", "x.data.zero_()", set()),
    ("autograd flags only", "x.requires_grad_(True)\ny.detach_()", set()),
    ("out of place", "return x.clamp(-1, 1)", set()),
    ("in a nested function", "def inner():\n    x.add_(1)\nreturn inner", set()),
]


@pytest.mark.parametrize(("title", "body", "changed"), CASES, ids=[c[0] for c in CASES])
def test_the_parameters_a_function_changes_in_place(
    title: str, body: str, changed: set[str]
) -> None:
    source = "def f(x, y, flag=False):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)
    assert set(changed_parameters(function)) == changed
