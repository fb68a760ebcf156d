"""Arithmetic on known Python numbers is a known number (`number_arithmetic`): `span //
levels` of two known ints is an int, so `torch.arange(0, span, stride)` of it is certainly
an int64 range; what Python would raise on, or what is not a plain number, stays unknown.
"""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.number_arithmetic import folded
from gradguard.analysis.values import Kind
from tests.analysis.test_value_facets import fact_at


@pytest.mark.parametrize(
    ("op", "left", "right", "expected"),
    [
        (ast.FloorDiv(), 12, 4, 3),
        (ast.FloorDiv(), 7, 2, 3),
        (ast.Div(), 7, 2, 3.5),
        (ast.Add(), True, 1, 2),
        (ast.Sub(), 8, 7, 1),
        (ast.Mult(), 1.5, 2, 3.0),
        (ast.Mod(), 7, 3, 1),
        (ast.Pow(), 2, -1, 0.5),
        (ast.Pow(), 2, 10, 1024),
    ],
)
def test_python_arithmetic_of_known_numbers(
    op: ast.operator, left: object, right: object, expected: object
) -> None:
    result = folded(op, left, right)
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize(
    ("op", "left", "right"),
    [
        (ast.FloorDiv(), 1, 0),  # ZeroDivisionError
        (ast.Div(), 1.0, 0.0),
        (ast.Pow(), -8, 0.5),  # a complex number
        (ast.Pow(), 10, 400),  # too large to be worth computing
        (ast.Pow(), 2, 100),  # more than 64 bits
        (ast.Mult(), 1e308, 10.0),  # overflows to inf
        (ast.Add(), "a", "b"),  # not numbers
        (ast.Add(), 1, None),
        (ast.LShift(), 1, 2),  # an operator not folded
    ],
)
def test_what_is_not_a_plain_number_stays_unknown(
    op: ast.operator, left: object, right: object
) -> None:
    assert folded(op, left, right) is None


@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        ("span = 12\nlevels = 4\nstride = span // levels  # <- stride\n", 3),
        ("half = 7 / 2  # <- half\n", 3.5),
        ("n = 3\nm = (n - 1) * 2 + 1  # <- m\n", 5),
    ],
)
def test_the_interpreter_knows_the_number(
    snippet: str, expected: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(snippet, monkeypatch)
    assert value.kind is Kind.SCALAR
    assert value.const == expected
    assert type(value.const) is type(expected)


def test_an_unknown_operand_leaves_the_number_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    value = fact_at("import sys\nn = len(sys.argv)\nm = n // 2  # <- m\n", monkeypatch)
    assert value.const is None
