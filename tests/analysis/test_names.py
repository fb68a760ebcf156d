"""`names.paired`: what each target of an assignment gets."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.names import paired


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("self.a = a", [("self.a", "a")]),
        ("self.a, self.b = a, b.to(d)", [("self.a", "a"), ("self.b", "b.to(d)")]),
        ("a, (b, c) = x, [y, z]", [("a", "x"), ("b", "y"), ("c", "z")]),
        ("a, b = pair", []),  # not a literal: which element goes where is unknown
        ("a, b = x, y, z", []),
        ("a, *b = x, y", []),
    ],
)
def test_paired(statement: str, expected: list[tuple[str, str]]) -> None:
    assign = ast.parse(statement).body[0]
    assert isinstance(assign, ast.Assign)
    pairs = paired(assign.targets[0], assign.value)
    assert [(ast.unparse(t), ast.unparse(v)) for t, v in pairs] == expected
