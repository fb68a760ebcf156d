"""What a tensor's sizes, pairwise distances and index reductions along a dim hold.

1. `x.shape` / `x.size()` of a tensor whose rank is known is a tuple of its sizes (each the
   int itself where known), so `b, n, _ = pts.shape` binds the numbers; `x.size(k)` is one
   of them. A rank not known leaves the sizes unknown.
2. `torch.cdist(x1, x2)` of `(*B, P, M)` and `(*B, R, M)` is `(*B, P, R)`.
3. `x.max(dim=k)`, `torch.min(x, k)`: values and indices have the shape of a reduction
   over `k` (kept as 1 with `keepdim=True`).
"""

from __future__ import annotations

import pytest

from gradguard.analysis.shapes import UNKNOWN_SHAPE, Shape, size_along, sizes_of
from gradguard.analysis.values import Kind
from tests.analysis.test_value_facets import fact_at


def test_sizes_of_a_known_rank() -> None:
    assert sizes_of(Shape((4, None, 3), exact=True)) == (4, None, 3)
    assert sizes_of(Shape((None, 3))) is None  # rank unknown: even the length is
    assert sizes_of(UNKNOWN_SHAPE) is None


@pytest.mark.parametrize(
    ("axis", "expected"), [(0, 4), (-1, 3), (1, None), (3, None), (-4, None), (None, None)]
)
def test_size_along_one_axis(axis: int | None, expected: int | None) -> None:
    assert size_along(Shape((4, None, 3), exact=True), axis) == expected


def test_size_along_a_shape_known_at_its_right_is_unknown() -> None:
    assert size_along(Shape((4, 3)), -1) is None


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("b, n, c = torch.randn(8, 5, 3).shape  # <- b", 8),
        ("b, n, c = torch.randn(8, 5, 3).shape  # <- c", 3),
        ("b, n = torch.randn(8, 5).size()  # <- n", 5),
        ("n = torch.randn(8, 5).size(-1)  # <- n", 5),
        ("n = torch.randn(8, 5).shape[0]  # <- n", 8),
        ("n = model(x.flatten(1)).size(0)  # <- n", None),  # rank unknown
        ("n = torch.randn(8, 5).size(2)  # <- n", None),  # out of range: torch raises
    ],
)
def test_sizes_of_a_tensor_are_its_ints(
    line: str, expected: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    size = fact_at(line, monkeypatch)
    assert size.kind is Kind.SCALAR
    assert size.const == expected


def test_sizes_read_to_reshape(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = """
        pts = torch.randn(6, 10, 3)
        b, n, _ = pts.shape
        flat = nn.Linear(3, 2)(pts).view(b, n * 2)  # <- flat
        """
    assert fact_at(snippet, monkeypatch).shape == Shape((6, 20), exact=True)


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("torch.cdist(torch.randn(4, 5, 3), torch.randn(4, 7, 3))", Shape((4, 5, 7), exact=True)),
        ("torch.cdist(torch.randn(5, 3), torch.randn(7, 3))", Shape((5, 7), exact=True)),
        ("torch.cdist(torch.randn(5, 3), torch.randn(2, 7, 3))", Shape((2, 5, 7), exact=True)),
        ("torch.cdist(model(x.flatten(1)), torch.randn(7, 2))", UNKNOWN_SHAPE),
    ],
)
def test_pairwise_distances(call: str, expected: Shape, monkeypatch: pytest.MonkeyPatch) -> None:
    assert fact_at(f"d = {call}  # <- d", monkeypatch).shape == expected


@pytest.mark.parametrize(
    ("reduction", "expected"),
    [
        ("t.min(dim=2).values", Shape((4, 5), exact=True)),
        ("t.max(1).indices", Shape((4, 6), exact=True)),
        ("torch.min(t, 1)[0]", Shape((4, 6), exact=True)),
        ("torch.max(t, -1, keepdim=True).values", Shape((4, 5, 1), exact=True)),
        ("t.median(dim=0).values", Shape((5, 6), exact=True)),
        ("t.sort(dim=1).values", UNKNOWN_SHAPE),  # not a reduction
        ("t.max(dim=3).values", UNKNOWN_SHAPE),  # out of range: torch raises
    ],
)
def test_index_reductions_along_a_dim(
    reduction: str, expected: Shape, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = f"""
        t = torch.randn(4, 5, 6, requires_grad=True)
        r = {reduction}  # <- r
        """
    assert fact_at(snippet, monkeypatch).shape == expected
