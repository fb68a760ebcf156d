"""Facts an `if` test gives each branch: `x is None` / `x is not None` under not/and/or."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.narrowing import of_test


def _facts(test: str) -> tuple[set[str], set[str]]:
    expr = ast.parse(test, mode="eval").body
    when_true, when_false = of_test(expr)
    return set(when_true.none), set(when_false.none)


@pytest.mark.parametrize(
    ("test", "true_branch", "false_branch"),
    [
        ("h is None", {"h"}, set()),
        ("h is not None", set(), {"h"}),
        ("not h is not None", {"h"}, set()),
        ("self.hidden is None", {"self.hidden"}, set()),
        ("h is None and c is None", {"h", "c"}, set()),
        ("h is not None or c is not None", set(), {"h", "c"}),
        ("h is not None and c is not None", set(), set()),
        ("h == None", set(), set()),  # `==` can be overloaded: no fact
        ("h is None is None", set(), set()),
        ("f(h) is None", set(), set()),
        ("h", set(), set()),
    ],
)
def test_identity_tests_against_none(
    test: str, true_branch: set[str], false_branch: set[str]
) -> None:
    assert _facts(test) == (true_branch, false_branch)
