"""Shapes that stay: tensors an object keeps, slices of them, and per-target losses.

1. A file that names no in-place shape change (`resize_`, `set_`, `squeeze_`...), stores
   no `.data` and passes no `out=` never changes a tensor's shape (`may_reshape_in_place`).
2. Then `self.<attr>`, when every store of the name in the file is a store of a method of
   the class of a tensor of known shape, holds a tensor of that shape in every method, its
   history unknown.
3. A slice keeps its dimension (`x[i : i + n]`: size unknown); a target one rank below an
   `(N, C, ...)` input of a class loss gives the loss its shape.
"""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.shaped_state import may_reshape_in_place
from gradguard.analysis.shapes import UNKNOWN_SHAPE, Shape, loss_shape
from gradguard.analysis.values import Grad, Kind
from tests.analysis.test_value_facets import fact_at


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("y = x[1:3] + 1\nx.add_(1)\nz = x.view(-1)", False),
        ("x.resize_(2, 3)", True),
        ("x[0].unsqueeze_(0)", True),
        ("f = torch.Tensor.set_", True),
        ("x.data = torch.zeros(3)", True),
        ("torch.add(a, b, out=x)", True),
        ("y = x.data", False),  # a read of `.data` changes nothing
    ],
)
def test_may_reshape_in_place(code: str, expected: bool) -> None:
    assert may_reshape_in_place(ast.parse(code)) is expected


_TRAINER = """
class Trainer:
    def __init__(self, stream):
        self.stream = stream
    {extra}

    def window(self, pos):
        chunk = self.stream[pos : pos + 4]  # <- chunk

def main():
    t = Trainer(torch.randint(0, 9, (30, 5)))
    t.window(2)
    {after}
"""


def test_a_kept_tensor_keeps_its_shape_in_methods(monkeypatch: pytest.MonkeyPatch) -> None:
    chunk = fact_at(_TRAINER.format(extra="", after=""), monkeypatch)
    assert chunk.kind is Kind.TENSOR
    assert chunk.shape == Shape((None, 5), exact=True)
    assert chunk.grad is Grad.UNKNOWN  # its history is another fact


@pytest.mark.parametrize(
    ("extra", "after"),
    [
        # another store of a tensor whose shape is not known
        ("def load(self, s):\n        self.stream = s", "t.load(model(x))"),
        # a store from outside the class
        ("", "t.stream = torch.zeros(2)"),
        # a shape changed in place somewhere in the file
        ("def shrink(self):\n        self.stream.resize_(3, 1)", ""),
        # `.data` swapped for another tensor
        ("def swap(self, s):\n        self.stream.data = s", ""),
    ],
)
def test_a_kept_tensor_whose_shape_may_change_stays_unknown(
    extra: str, after: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    chunk = fact_at(_TRAINER.format(extra=extra, after=after), monkeypatch)
    assert chunk.shape == UNKNOWN_SHAPE


def test_two_stores_of_known_shapes_keep_what_they_share(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    extra = "def load(self):\n        self.stream = torch.zeros(12, 5, dtype=torch.long)"
    chunk = fact_at(_TRAINER.format(extra=extra, after="t.load()"), monkeypatch)
    assert chunk.shape == Shape((None, 5), exact=True)


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        ("t[2:5]", Shape((None, 4, 6), exact=True)),
        ("t[:, ::2]", Shape((3, None, 6), exact=True)),
        ("t[1:, 0]", Shape((None, 6), exact=True)),
        ("t[..., :-1]", Shape((3, 4, None), exact=True)),
        ("t[i:]", Shape((None, 4, 6), exact=True)),
        ("t[i]", UNKNOWN_SHAPE),  # an int or a tensor: not known which
    ],
)
def test_slices_keep_their_dimension(
    index: str, expected: Shape, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = f"""
        t = torch.randn(3, 4, 6)
        i = int(x.sum())
        r = {index}  # <- r
        """
    assert fact_at(snippet, monkeypatch).shape == expected


@pytest.mark.parametrize(
    ("input_shape", "target", "expected"),
    [
        # class indices one rank below (N, C): one loss per target
        (Shape((None, 7), exact=True), Shape((None,), exact=True, many=True), "many"),
        (Shape((None, 7), exact=True), Shape((5,), exact=True), Shape((5,), exact=True)),
        (Shape((4, 7, None), exact=True), Shape((4, 9), exact=True), Shape((4, 9), exact=True)),
        # probabilities of the input's own rank: the input tells N only
        (Shape((None, 7), exact=True), Shape((5, 7), exact=True), Shape((None,), exact=True)),
        (Shape((None, 7), exact=True), UNKNOWN_SHAPE, Shape((None,), exact=True)),
    ],
)
def test_class_losses_take_the_shape_of_index_targets(
    input_shape: Shape, target: Shape, expected: Shape | str
) -> None:
    shape = loss_shape("cross_entropy", "none", input_shape, target)
    if expected == "many":
        assert shape.not_single
    else:
        assert shape == expected
