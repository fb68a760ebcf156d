"""Shapes through `.detach()`, `view`/`reshape` with known sizes and `gather` (checked
against torch 2.13.0): a detached tensor keeps its shape; sizes given to a reshape are the
result's, a `-1` among them worked out from an exactly known shape (else that one size is
unknown); `gather` returns a tensor shaped like its index."""

from __future__ import annotations

import pytest

from gradguard.analysis.shapes import Shape
from tests.analysis.test_value_facets import fact_at


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("torch.randn(6, 2).detach()", Shape((6, 2), exact=True)),
        ("(torch.randn(5) * 2).detach()", Shape((5,), exact=True)),
        ("torch.randn(12).view(3, 4)", Shape((3, 4), exact=True)),
        ("torch.randn(12).view(-1, 4)", Shape((3, 4), exact=True)),
        ("torch.randn(3, 4).reshape((-1,))", Shape((12,), exact=True)),
        ("torch.reshape(torch.randn(2, 6), (4, -1))", Shape((4, 3), exact=True)),
        ("torch.randint(0, 5, (9,)).view(-1, 1)", Shape((9, 1), exact=True)),
        ("torch.randn(7, 3).gather(1, torch.randint(0, 3, (7, 1)))", Shape((7, 1), exact=True)),
        ("torch.gather(torch.randn(7, 3), 1, index=torch.ones(7, 2).long())", Shape((7, 2), True)),
    ],
)
def test_known_shapes(expr: str, expected: Shape, monkeypatch: pytest.MonkeyPatch) -> None:
    assert fact_at(f"a = {expr}  # <- a\n", monkeypatch).shape == expected


def test_a_minus_one_of_a_shape_known_only_in_part_leaves_that_size_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = """
    def f(k):
        a = (torch.randn(4) * k).view(-1, 1)  # <- a
    """
    assert fact_at(snippet, monkeypatch).shape == Shape((None, 1), exact=True, many=True)


@pytest.mark.parametrize(
    "expr",
    [
        # A size not known, two `-1`s, a dtype, sizes that do not fit: only the number of
        # elements is kept.
        "torch.randn(12).view(k, 4)",
        "torch.randn(12).view(-1, -1)",
        "torch.randn(12).view(torch.int32)",
        "torch.randn(7).view(-1, 2)",
    ],
)
def test_reshapes_not_followed_keep_only_the_number_of_elements(
    expr: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = f"""
    def f(k):
        a = {expr}  # <- a
    """
    assert fact_at(snippet, monkeypatch).shape == Shape(many=True)


@pytest.mark.parametrize(
    "expr",
    [
        "torch.randn(1).view(-1, 1)",  # one element, whatever the sizes
        "torch.randn(7, 3).gather(1, k)",  # an index of unknown shape
        "k.detach()",
        "k.view(-1, 1)",
    ],
)
def test_not_known_to_hold_several_elements(expr: str, monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = f"""
    def f(k):
        a = {expr}  # <- a
    """
    assert not fact_at(snippet, monkeypatch).shape.not_single
