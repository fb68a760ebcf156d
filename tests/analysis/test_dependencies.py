"""Direct tests of `gradguard.analysis.dependencies`: the syntactic def-use facts fixes use
to judge whether an edit keeps meaning."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.dependencies import assigned_names, names_feeding, read_names, reads_key


def _target(source: str) -> ast.expr:
    stmt = ast.parse(source).body[0]
    assert isinstance(stmt, ast.Assign)
    return stmt.targets[0]


@pytest.mark.parametrize(
    ("source", "names"),
    [
        ("h = 1", {"h"}),
        ("self.hidden = 1", {"self.hidden"}),
        ("a, (b, self.c) = x", {"a", "b", "self.c"}),
        ("[a, *rest] = x", {"a", "rest"}),
        ("xs[0] = 1", set()),  # a subscript binds no name
        ("f().a = 1", set()),  # nor an attribute of a call
    ],
)
def test_assigned_names(source: str, names: set[str]) -> None:
    assert assigned_names(_target(source)) == names


@pytest.mark.parametrize(
    ("source", "names"),
    [
        ("loss * 2", {"loss"}),
        ("self.hidden.detach()", {"self.hidden.detach", "self.hidden", "self"}),
        ("f(a, b=c)[d]", {"f", "a", "c", "d"}),
        ("[x for x in xs]", {"x", "xs"}),
        ("1 + 2", set()),
    ],
)
def test_read_names(source: str, names: set[str]) -> None:
    assert read_names(ast.parse(source, mode="eval")) == names


FEEDING = """
a = data()
b = a * 2
c = other()
d = b + 1
d += c
e: float = d.item()
"""


@pytest.mark.parametrize(
    ("roots", "feeding"),
    [
        ({"e"}, {"e", "d", "d.item", "b", "c", "other", "a", "data"}),
        ({"b"}, {"b", "a", "data"}),
        ({"c"}, {"c", "other"}),
        ({"unrelated"}, {"unrelated"}),
    ],
)
def test_names_feeding_follows_assignments_transitively(roots: set[str], feeding: set[str]) -> None:
    assert names_feeding(ast.parse(FEEDING).body, roots) == feeding


def test_reads_key() -> None:
    node = ast.parse("self.hidden = self.hidden.detach()").body[0]
    assert isinstance(node, ast.Assign)
    assert reads_key(node.value, "self.hidden")
    assert not reads_key(node.value, "hidden")
    assert not reads_key(node.targets[0], "self.hidden")  # a store is no read
