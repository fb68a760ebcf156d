"""Small shape facts the interpreter keeps (checked against torch 2.13.0): integer casts keep
their receiver's shape, basic indexing with `None`, `...`, `:` and ints, the rows of a
TensorDataset told by one tensor, the output of nn.GRU/LSTM/RNN, and class losses with
integer targets shaped like their target."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.shapes import UNKNOWN_SHAPE, Shape, indexed
from tests.analysis.test_value_facets import fact_at


@pytest.mark.parametrize("cast", ["long", "int", "short", "bool", "byte"])
def test_an_integer_cast_keeps_the_shape(cast: str, monkeypatch: pytest.MonkeyPatch) -> None:
    value = fact_at(f"a = torch.ones(48, 12).{cast}()  # <- a\n", monkeypatch)
    assert value.shape == Shape((48, 12), exact=True)
    assert value.integer_dtype


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        ("None, :", Shape((1, 4, 5, 6), exact=True)),
        (":, None", Shape((4, 1, 5, 6), exact=True)),
        ("..., 0", Shape((4, 5), exact=True)),
        ("..., -1, None", Shape((4, 5, 1), exact=True)),
        ("0", Shape((5, 6), exact=True)),
        (":, -1", Shape((4, 6), exact=True)),
        ("None, ..., None", Shape((1, 4, 5, 6, 1), exact=True)),
        # Out of range, too many indices, two ellipses: torch raises.
        ("4", UNKNOWN_SHAPE),
        ("0, 0, 0, 0", UNKNOWN_SHAPE),
        ("..., 0, ...", UNKNOWN_SHAPE),
        # A bounded slice keeps its dimension, of a size not known.
        ("1:", Shape((None, 5, 6), exact=True)),
        (":, ::2, 1", Shape((4, None), exact=True)),
        # Lists, tensors, names, bools: not followed.
        ("[0, 1]", UNKNOWN_SHAPE),
        ("i", UNKNOWN_SHAPE),
        ("True", UNKNOWN_SHAPE),
    ],
)
def test_basic_indexing(index: str, expected: Shape) -> None:
    node = ast.parse(f"x[{index}]", mode="eval").body
    assert isinstance(node, ast.Subscript)
    assert indexed(Shape((4, 5, 6), exact=True), node.slice) == expected


def test_indexing_an_inexact_shape_is_unknown() -> None:
    node = ast.parse("x[..., 0]", mode="eval").body
    assert isinstance(node, ast.Subscript)
    assert indexed(Shape((5, 6)), node.slice) == UNKNOWN_SHAPE


def test_an_indexed_tensor_has_the_indexed_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = "a = torch.arange(12)[None, :] < torch.ones(48)[:, None]  # <- a\n"
    assert fact_at(snippet, monkeypatch).shape == Shape((48, 12), exact=True)


def test_one_tensor_with_known_rows_sizes_a_tensor_dataset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = """
    from torch.utils.data import DataLoader, TensorDataset
    def f(width):
        ids = torch.randint(0, 9, (48, width)) * torch.ones(width)
        data = TensorDataset(ids, torch.randint(0, 3, (48,)))
        for xb, yb in DataLoader(data, batch_size=8):
            b = yb  # <- b
    """
    value = fact_at(snippet, monkeypatch)
    assert value.shape == Shape((8,), exact=True)
    assert value.integer_dtype  # stacking rows keeps their dtype


@pytest.mark.parametrize(
    ("layer", "given", "expected"),
    [
        ("nn.GRU(16, 32, batch_first=True, bidirectional=True)", "(8, 12, 16)", (8, 12, 64)),
        ("nn.LSTM(16, 32)", "(12, 8, 16)", (12, 8, 32)),
        ("nn.LSTM(16, 32, proj_size=4, bidirectional=True)", "(12, 16)", (12, 8)),
        ("nn.RNN(16, hidden_size=5)", "(3, 16)", (3, 5)),
    ],
)
def test_a_recurrent_layers_output(
    layer: str, given: str, expected: tuple[int, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = f"rnn = {layer}\nout, _ = rnn(torch.randn{given})  # <- out\n"
    assert fact_at(snippet, monkeypatch).shape == Shape(expected, exact=True)


@pytest.mark.parametrize(
    "layer",
    [
        "nn.GRU(16, 32, 1, True, True)",  # options passed by position: not followed
        "nn.GRU(16, 32, bidirectional=flag)",  # not a literal
    ],
)
def test_a_recurrent_layer_not_understood_is_unknown(
    layer: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = f"flag = len(x) > 2\nrnn = {layer}\nout, _ = rnn(torch.randn(8, 12, 16))  # <- out\n"
    assert not fact_at(snippet, monkeypatch).shape.not_single


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("torch.randint(0, 3, (8,))", Shape((8,), exact=True)),
        ("torch.ones(8).long()", Shape((8,), exact=True)),
        # Probability targets: the loss drops the class dimension, not known here.
        ("torch.rand(8, 3)", UNKNOWN_SHAPE),
    ],
)
def test_a_class_loss_with_integer_targets_has_their_shape(
    target: str, expected: Shape, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = f"""
    def f(head, width):
        logits = head(torch.randn(8, width))
        a = F.cross_entropy(logits, {target}, reduction="none")  # <- a
    """
    assert fact_at(snippet, monkeypatch).shape == expected


def test_nll_loss_targets_are_always_class_indices(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = """
    def f(log_probs, target):
        a = nn.NLLLoss(reduction="none")(log_probs, torch.zeros(4, 7, dtype=torch.long))  # <- a
    """
    assert fact_at(snippet, monkeypatch).shape == Shape((4, 7), exact=True)


@pytest.mark.parametrize(("given", "expected"), [("y", Shape((8,), exact=True)), ("", None)])
def test_a_forward_of_two_structures_takes_the_calls_path(
    given: str, expected: Shape | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `forward` returning a tensor on one path and a tuple on the other: its summary
    knows neither, the run with the call's arguments knows which path is taken."""
    snippet = f"""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x, y=None):
            logits = self.fc(x)
            if y is None:
                return logits
            return F.cross_entropy(logits, y, reduction="none"), logits

    m = M()
    y = torch.randint(0, 3, (8,))
    out = m(torch.randn(8, 4), {given})  # <- out
    """
    value = fact_at(snippet, monkeypatch)
    if expected is None:
        assert value.elements is None  # the tensor path: not a tuple
    else:
        assert value.elements is not None and len(value.elements) == 2
        assert value.elements[0].shape == expected


_PASSED_DOWN = """
import argparse
def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--batch_size", type=int, default=8)
    return p.parse_args(argv)
def main(argv=None):
    args = get_args(argv)  # <- args
    return args
"""


@pytest.mark.parametrize(
    ("entry", "known"),
    [
        ("main([])", True),
        ("main(argv=())", True),
        ("main()", False),  # None: sys.argv decides
        ("main(['--batch_size', '1'])", False),
        ("main([])\nmain(sys.argv[1:])", False),  # every call must pass an empty list
        ("main([])\nrun = main", False),  # mentioned otherwise: not every call is seen
    ],
)
def test_an_empty_command_line_passed_down_by_every_caller(
    entry: str, known: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at("import sys\n" + _PASSED_DOWN + entry + "\n", monkeypatch)
    assert value.fields is not None and value.elements is not None
    size = value.elements[value.fields.index("batch_size")].const
    assert size == (8 if known else None)


def test_a_loader_sized_by_a_parameters_setting_learns_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = (
        _PASSED_DOWN.replace("    return args\n", "    build(args)\n").replace("  # <- args", "")
        + """
from torch.utils.data import DataLoader, TensorDataset
def build(args):
    for (xb,) in DataLoader(TensorDataset(torch.ones(48, 3)), batch_size=args.batch_size):
        b = xb  # <- b
main([])
"""
    )
    assert fact_at(snippet, monkeypatch).shape == Shape((8, 3), exact=True)
