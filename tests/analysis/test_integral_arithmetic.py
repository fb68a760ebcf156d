"""Arithmetic and indexing that keep an integer dtype (`dtypes.integral_arithmetic`,
`kept_by_indexing`): `+ - * // %`, the bitwise operators and unary `-`/`+`/`~` of tensors
certainly of an integer or bool dtype and Python ints give an integer tensor, and indexing
keeps the dtype it picks from (checked with torch 2.13.0), so
`nn.Parameter(torch.arange(n)[None] - torch.arange(n)[:, None])` raises (GG402). True
division, a float operand, `**`, or an operand whose dtype is not known give no such
certainty."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.dtypes import integral_arithmetic
from gradguard.analysis.values import Grad, Kind, Value
from gradguard.core.engine import check_source
from gradguard.core.settings import Settings
from tests.analysis.test_value_facets import fact_at

INT = Value(Grad.UNTRACKED, Kind.TENSOR, leaf=True, integer_dtype=True)
FLOAT = Value(Grad.UNTRACKED, Kind.TENSOR, leaf=True)
ONE = Value(Grad.UNTRACKED, Kind.SCALAR, const=1)
HALF = Value(Grad.UNTRACKED, Kind.SCALAR, const=0.5)


@pytest.mark.parametrize(
    ("op", "operands", "integral"),
    [
        (ast.Sub(), [INT, INT], True),
        (ast.Add(), [INT, ONE], True),
        (ast.Mult(), [ONE, INT], True),
        (ast.FloorDiv(), [INT, ONE], True),
        (ast.BitAnd(), [INT, INT], True),
        (ast.USub(), [INT], True),
        (ast.Div(), [INT, ONE], False),
        (ast.Pow(), [INT, ONE], False),
        (ast.Add(), [INT, HALF], False),
        (ast.Add(), [INT, FLOAT], False),
        (ast.Add(), [ONE, ONE], False),
        (None, [INT, INT], False),
    ],
)
def test_which_operators_keep_an_integer_dtype(
    op: ast.operator | ast.unaryop | None, operands: list[Value], integral: bool
) -> None:
    assert integral_arithmetic(op, operands) is integral


IDS = "ids = torch.arange(6)\nemb = torch.randn(6)\n"


@pytest.mark.parametrize(
    ("expression", "integer"),
    [
        ("ids[None] - ids[:, None]", True),
        ("ids.unsqueeze(0) + 1", True),
        ("-ids", True),
        ("(ids % 3) * 2", True),
        ("ids / 2", False),
        ("ids * 0.5", False),
        ("ids + emb", False),
    ],
)
def test_arithmetic_on_integer_tensors_is_integer(
    expression: str, integer: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(f"{IDS}y = {expression}  # <- y\n", monkeypatch)
    assert value.kind is Kind.TENSOR
    assert value.integer_dtype is integer


@pytest.mark.parametrize(
    ("expression", "found"),
    [
        ("torch.arange(5)[None] - torch.arange(5)[:, None]", True),
        ("torch.arange(5) + 2", True),
        ("torch.arange(5) / 2", False),
        ("torch.arange(5) - 2.0", False),
    ],
)
def test_a_parameter_of_integer_arithmetic(expression: str, found: bool) -> None:
    source = f"import torch\nfrom torch import nn\n\np = nn.Parameter({expression})\n"
    findings = check_source(source, settings=Settings(select=("GG402",))).findings
    assert [f.code for f in findings] == (["GG402"] if found else [])


@pytest.mark.parametrize(
    ("expression", "integer"),
    [("ids[None]", True), ("ids[1:]", True), ("ids[ids > 2]", True), ("emb[ids]", False)],
)
def test_indexing_keeps_the_integer_dtype(
    expression: str, integer: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(f"{IDS}y = {expression}  # <- y\n", monkeypatch)
    assert value.kind is Kind.TENSOR
    assert value.integer_dtype is integer
