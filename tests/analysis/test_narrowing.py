"""Facts an `if` test gives each branch: `x is None` / `x is not None` under not/and/or."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.narrowing import condition_of, of_test


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


@pytest.mark.parametrize(
    ("condition", "test", "branch", "decided"),
    [
        ('phase == "train"', 'phase == "val"', True, False),
        ('phase == "train"', 'phase == "val"', False, None),
        ('phase == "train"', 'phase == "train"', True, True),
        ('phase == "train"', 'phase != "train"', True, False),
        ('phase != "eval"', 'phase == "eval"', True, False),
        ("training", "not training", True, False),
        ("training", "training", True, True),
        ("not training", "training", True, False),
        ('phase == "train"', 'mode == "val"', True, None),
        ('phase == "train"', "phase is None", True, None),
    ],
)
def test_a_branch_decides_a_condition_on_one_name(
    condition: str, test: str, branch: bool, decided: bool | None
) -> None:
    parsed = condition_of(ast.parse(condition, mode="eval").body)
    assert parsed is not None
    when_true, when_false = of_test(ast.parse(test, mode="eval").body)
    facts = when_true if branch else when_false
    assert facts.decides(parsed) is decided


@pytest.mark.parametrize("test", ["f(phase)", "phase == other", "phase < 3", "a == 1 == b"])
def test_only_one_name_against_a_literal_is_a_condition(test: str) -> None:
    assert condition_of(ast.parse(test, mode="eval").body) is None
