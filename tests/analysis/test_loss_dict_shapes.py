"""Shapes of per-sample loss terms and of the totals built from them.

1. A reduction over a tuple of dims (`x.mean(dim=(1, 2))`) drops those axes (keeps them as 1
   with `keepdim=True`); unknown unless every axis is among the known dimensions.
2. `d.values()` / `d.items()` of a dict whose keys are all known yield each value, so
   `sum(d.values())` is the broadcast of every value.
3. A generator or list comprehension over a few known elements runs once per element; a
   condition known for an element (`k in weights` of a dict with known keys) keeps or drops
   it, an unknown one leaves only what the elements have in common.
"""

from __future__ import annotations

import pytest

from gradguard.analysis.shapes import UNKNOWN_SHAPE, Shape
from tests.analysis.test_value_facets import fact_at


@pytest.mark.parametrize(
    ("reduction", "expected"),
    [
        ("mean(dim=(1, 2))", Shape((4,), exact=True)),
        ("sum((-1, -2))", Shape((4,), exact=True)),
        ("amax(dim=[0, 2])", Shape((3,), exact=True)),
        ("mean(dim=(1, 2), keepdim=True)", Shape((4, 1, 1), exact=True)),
        ("nanmean(dim=(0, 1, 2))", Shape((), exact=True)),
        ("mean(dim=(1, 1))", UNKNOWN_SHAPE),  # torch raises: a repeated dim
        ("mean(dim=(1, -2))", UNKNOWN_SHAPE),  # the same dim twice
        ("mean(dim=(1, 3))", UNKNOWN_SHAPE),  # out of range
        ("mean(dim=())", UNKNOWN_SHAPE),
        ("prod(dim=(1,))", UNKNOWN_SHAPE),  # prod takes one int in torch 2.13.0
    ],
)
def test_reductions_over_a_tuple_of_dims(
    reduction: str, expected: Shape, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = f"""
        error = F.mse_loss(torch.randn(4, 3, 5), torch.randn(4, 3, 5), reduction="none")
        per_sample = error.{reduction}  # <- per_sample
        """
    assert fact_at(snippet, monkeypatch).shape == expected


@pytest.mark.parametrize(
    ("reduction", "expected"),
    [("sum(dim=(-1,))", Shape(())), ("sum(dim=(0, -1))", UNKNOWN_SHAPE)],
)
def test_tuple_dims_of_a_shape_known_at_its_right(
    reduction: str, expected: Shape, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = f"""
        out = nn.Linear(2, 2)(x.flatten(1))  # (..., 2): dims are counted from the right
        reduced = out.{reduction}  # <- reduced
        """
    assert fact_at(snippet, monkeypatch).shape == expected


TERMS = (
    "error = torch.randn(4, 3, requires_grad=True)\n"
    'terms = {"rows": error.mean(dim=(1,)), "all": error.mean()}\n'
    "weights = WEIGHTS\n"
)


@pytest.mark.parametrize(
    ("weights", "total", "expected"),
    [
        ("{}", "sum(terms.values())", Shape((4,), exact=True)),
        ("{}", "sum(terms.values(), torch.zeros(()))", Shape((4,), exact=True)),
        (
            "{'rows': 1.0, 'all': 0.5}",
            "sum(weights[k] * v for k, v in terms.items() if k in weights)",
            Shape((4,), exact=True),
        ),
        (
            "{'all': 0.5}",
            "sum(weights[k] * v for k, v in terms.items() if k in weights)",
            Shape((), exact=True),
        ),
        (
            "{'all': 0.5}",
            "sum([v for k, v in terms.items() if k not in weights])",
            Shape((4,), exact=True),
        ),
    ],
)
def test_sums_over_a_dict_of_known_keys(
    weights: str, total: str, expected: Shape, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = f"WEIGHTS = {weights}\n{TERMS}\ntotal = {total}  # <- total\n"
    assert fact_at(snippet, monkeypatch).shape == expected


@pytest.mark.parametrize(
    "setup",
    [
        "terms[name] = error.sum()",  # a key not known: some value may be any
        "terms.update(extra)",  # keys no longer known
    ],
)
def test_sums_over_a_dict_of_unknown_keys_stay_unknown(
    setup: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = f"WEIGHTS = {{}}\n{TERMS}\n{setup}\ntotal = sum(terms.values())  # <- total\n"
    assert not fact_at(snippet, monkeypatch).shape.not_single


def test_an_unknown_condition_keeps_only_what_the_elements_share(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body = TERMS + "total = sum(v for k, v in terms.items() if k in active)  # <- total\n"
    snippet = "WEIGHTS = {}\ndef f(active):\n" + "".join(
        f"    {line}\n" for line in body.splitlines()
    )
    value = fact_at(snippet, monkeypatch)
    assert not value.shape.not_single and not value.shape.exact


def test_membership_in_a_dict_of_known_keys_is_known(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = """
        weights = {"a": 1.0}
        found = ("a" in weights, "b" in weights, "b" not in weights)  # <- found
        """
    elements = fact_at(snippet, monkeypatch).elements
    assert elements is not None
    assert [e.const for e in elements] == [True, False, True]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # squeeze drops a named axis of size 1, keeps one of another known size
        ("torch.randn(4, 1, 20).squeeze(1)", Shape((4, 20), exact=True)),
        ("torch.randn(4, 1, 20).squeeze(0)", Shape((4, 1, 20), exact=True)),
        ("torch.squeeze(torch.randn(1, 1, 20), (0, 1))", Shape((20,), exact=True)),
        ("torch.randn(4, 1, 20).squeeze(dim=-2)", Shape((4, 20), exact=True)),
        ("torch.randn(4, 20).unsqueeze(-1)", Shape((4, 20, 1), exact=True)),
        ("torch.unsqueeze(torch.randn(4, 20), 0)", Shape((1, 4, 20), exact=True)),
        # a convolution keeps the batch size of an input of known rank
        ("nn.Conv1d(1, 8, 3)(torch.randn(4, 1, 20))", Shape((4, 8, None), exact=True)),
        ("nn.Conv1d(1, 8, 3)(torch.randn(1, 20))", Shape((8, None), exact=True)),
        (
            "nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU())(torch.randn(2, 3, 9, 9))",
            Shape((2, 8, None, None), exact=True),
        ),
        # stft of a batch of signals keeps the batch size
        (
            "torch.stft(torch.randn(4, 256), 64, window=torch.hann_window(64), "
            "return_complex=True).abs()",
            Shape((4, None, None), exact=True),
        ),
        ("torch.stft(torch.randn(256), 64, return_complex=True)", Shape((None, None), exact=True)),
    ],
)
def test_ops_that_keep_the_batch_size(
    expression: str, expected: Shape, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert fact_at(f"out = {expression}  # <- out\n", monkeypatch).shape == expected


@pytest.mark.parametrize(
    "expression",
    [
        "torch.randn(4, 1, 20).squeeze()",  # every size-1 axis: fine here, kept general
        "x.flatten().view(-1, 1, 2).squeeze(1)",  # the rank is known, a size is not
        "nn.Linear(2, 2)(x.flatten(1)).squeeze(0)",  # counted from the left of (..., 2)
        "torch.stft(torch.randn(4, 256), 64, return_complex=False)",  # adds a last dim of 2
        "torch.stft(torch.randn(2, 4, 256), 64, return_complex=True)",  # raises: 3-D
        "nn.Conv1d(1, 8, 3)(x.flatten(1))",  # rank not known: batched or not
    ],
)
def test_unknown_batch_sizes_stay_unknown(expression: str, monkeypatch: pytest.MonkeyPatch) -> None:
    shape = fact_at(f"out = {expression}  # <- out\n", monkeypatch).shape
    assert not shape.exact or None in shape.dims[:1]


CODEC = """
class Codec(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv1d(1, channels, 3), nn.ELU())
        self.decoder = nn.ConvTranspose1d(channels, 1, 3)

    def forward(self, x):
        return {"audio": self.decoder(self.encoder(x))}


def per_clip(pred, target):
    return (pred - target).abs().mean(dim=(1, 2))
"""


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # a forward run with this call's input: the batch size survives layers of unknown width
        (
            'out = Codec()(torch.randn(4, 1, 20))["audio"]  # <- out',
            Shape((4, 1, None), exact=True),
        ),
        # a helper run with this call's arguments
        (
            "out = per_clip(torch.randn(4, 1, 20), torch.randn(4, 1, 20))  # <- out",
            Shape((4,), exact=True),
        ),
        (
            "out = per_clip(torch.randn(1, 1, 20), torch.zeros(1, 1, 20))  # <- out",
            Shape((1,), exact=True),
        ),
    ],
)
def test_results_of_calls_take_the_shape_their_arguments_give(
    line: str, expected: Shape, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert fact_at(CODEC + line + "\n", monkeypatch).shape == expected


def test_a_layer_of_unknown_width_keeps_the_other_dims(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = """
        def head(width):
            out = nn.Linear(3, width)(torch.randn(5, 3))  # <- out
            return out
        """
    assert fact_at(snippet, monkeypatch).shape == Shape((5, None), exact=True)
