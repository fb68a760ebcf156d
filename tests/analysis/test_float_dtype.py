"""What is certain about a tensor's floating dtype, and what a cast to it returns: factories
of floating values make float32 unless the file may change torch's default dtype, `dtype=`
and casts give theirs, and a cast to the dtype a tensor has returns the tensor itself (so a
leaf stays a leaf: checked against torch 2.13.0, `torch.randn(3, requires_grad=True).float()`
is the leaf, `.double()` of it a copy with a grad_fn).
"""

from __future__ import annotations

import pytest

from gradguard.analysis.values import Grad, Kind
from tests.analysis.test_value_facets import fact_at


@pytest.mark.parametrize(
    ("expression", "dtype"),
    [
        ("torch.randn(2, 3)", "torch.float32"),
        ("torch.zeros(2, dtype=torch.double)", "torch.float64"),
        ("torch.tensor([1.0, -2.5])", "torch.float32"),
        ("torch.randn(2).double().clone()", "torch.float64"),
        ("torch.ones(3).to(torch.half)", "torch.float16"),
        # Data of unknown or integer dtype, a dtype not named, a device move: not certain.
        ("torch.tensor([1, 2])", None),
        ("torch.tensor(data)", None),
        ("torch.full((2,), 1.0)", None),
        ("torch.zeros(2, dtype=kind)", None),
        ("torch.randn(2).to(device)", None),
        ("torch.randn(2) * 2", None),
    ],
)
def test_float_dtype_where_certain(
    expression: str, dtype: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(f"y = {expression}  # <- y\n", monkeypatch)
    assert value.kind is Kind.TENSOR
    assert value.float_dtype == dtype


def test_a_file_that_may_change_the_default_dtype_knows_no_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = "torch.set_default_dtype(torch.float64)\ny = torch.randn(2)  # <- y\n"
    assert fact_at(source, monkeypatch).float_dtype is None


@pytest.mark.parametrize(
    ("expression", "leaf"),
    [
        ("torch.randn(3, requires_grad=True).float()", True),
        ("torch.randn(3, dtype=torch.float64, requires_grad=True).double()", True),
        ("torch.tensor([0.5], requires_grad=True).to(dtype=torch.float32)", True),
        ("torch.randn(3, requires_grad=True).double()", False),
        ("torch.randn(3, requires_grad=True).to(torch.float16)", False),
    ],
)
def test_a_cast_to_the_dtype_a_leaf_has_is_the_leaf(
    expression: str, leaf: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(f"w = {expression}  # <- w\n", monkeypatch)
    assert value.grad is Grad.TRACKED
    assert value.leaf is leaf
    assert value.has_history is not leaf
