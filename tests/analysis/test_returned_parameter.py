"""`summary.returned_parameter`: the parameter a function always returns as it was passed,
so that a call of it returns the caller's argument (`model = load_weights(Net(), path)`)."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.interpreter.summary import returned_parameter


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(m, p):\n    m.load(p)\n    return m\n", "m"),
        ("def f(m, p):\n    if p:\n        return m\n    m.eval()\n    return m\n", "m"),
        # It may fall off the end, return something else, or rebind the name.
        ("def f(m, p):\n    if p:\n        return m\n", None),
        ("def f(m, p):\n    if p:\n        return p\n    return m\n", None),
        ("def f(m, p):\n    m = m.to(p)\n    return m\n", None),
        ("def f(m, p):\n    for m in p:\n        pass\n    return m\n", None),
        (
            "def f(m, p):\n    def g():\n        nonlocal m\n        m = p\n"
            "    g()\n    return m\n",
            None,
        ),
        ("def f(m, p):\n    return m.cuda()\n", None),
        ("def f(*m):\n    return m\n", None),
    ],
)
def test_the_parameter_a_function_always_returns(source: str, expected: str | None) -> None:
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)
    assert returned_parameter(function) == expected
