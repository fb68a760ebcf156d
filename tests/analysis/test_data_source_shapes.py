"""Shapes of what `torch.utils.data` hands out (analysis/data_sources.py): rows of a
TensorDataset, and batches of a DataLoader whose every batch has the same number of rows."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module
from gradguard.analysis.shapes import Shape

PRELUDE = """
import torch
from torch.utils.data import DataLoader, TensorDataset
w = torch.randn(1, requires_grad=True)
x = torch.randn(80, 16)
y = torch.randint(0, 4, (80,))
"""


def _batch_shape(loader: str) -> Shape:
    """The shape of the first field of a batch of `loader` (scaled by a weight that requires
    grad, so that it is backpropagated)."""
    source = PRELUDE + textwrap.dedent(f"""
    for xb, yb in {loader}:
        (w * xb).backward()
    """)
    calls = analyse_module(ast.parse(source), source).backward_calls
    assert len(calls) == 1, calls
    return calls[0].value.shape


@pytest.mark.parametrize(
    ("loader", "expected"),
    [
        ("DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)", Shape((16, 16), True)),
        ("DataLoader(TensorDataset(x, y), 20)", Shape((20, 16), True)),  # positional
        ("DataLoader(TensorDataset(x, y))", Shape((1, 16), True)),  # the default batch size
        ("DataLoader(TensorDataset(x, y), batch_size=100)", Shape((80, 16), True)),  # one batch
        # 80 rows in batches of 32: 32, 32, 16. Dropping the last batch keeps only 32s.
        ("DataLoader(TensorDataset(x, y), batch_size=32)", Shape((None, 16), True)),
        ("DataLoader(TensorDataset(x, y), batch_size=32, drop_last=True)", Shape((32, 16), True)),
        # A sampler decides how many rows are drawn.
        ("DataLoader(TensorDataset(x, y), batch_size=16, sampler=s)", Shape((None, 16), True)),
    ],
)
def test_batches_have_the_rows_shape_and_a_batch_dimension(loader: str, expected: Shape) -> None:
    assert _batch_shape(loader) == expected


@pytest.mark.parametrize(
    "loader",
    [
        # A batch size the analysis does not know may be None: rows, not batches.
        "DataLoader(TensorDataset(x, y), batch_size=bs)",
        "DataLoader(TensorDataset(x, y), batch_size=None)",
        "DataLoader(TensorDataset(x, y), batch_size=16, collate_fn=f)",  # its own batches
        "DataLoader(TensorDataset(x, torch.zeros(81)), batch_size=16)",  # not one length
    ],
)
def test_batches_of_unknown_shape(loader: str) -> None:
    assert _batch_shape(loader) == Shape((None,))  # `w * xb`: w's one dimension only


def test_a_batch_size_bound_to_a_name_is_read() -> None:
    loader = "DataLoader(TensorDataset(x, y), batch_size=CONFIG['batch'])"
    source_prefix = "CONFIG = {'batch': 8}\n"
    source = (
        PRELUDE
        + source_prefix
        + textwrap.dedent(f"""
    for xb, yb in {loader}:
        (w * xb).backward()
    """)
    )
    (call,) = analyse_module(ast.parse(source), source).backward_calls
    assert call.value.shape == Shape((8, 16), exact=True)


def test_rows_of_a_dataset_lose_the_first_dimension() -> None:
    source = PRELUDE + "for xr, yr in TensorDataset(x, y):\n    (w * xr).backward()\n"
    (call,) = analyse_module(ast.parse(source), source).backward_calls
    assert call.value.shape == Shape((16,), exact=True)
