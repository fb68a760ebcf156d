"""Hyperparameters a torch.nn layer keeps (`embed.embedding_dim`, `lstm.hidden_size`) and
the `math` module's functions and constants are Python numbers: never tensors, without
history. A layer attribute is the number itself when the layer was built with it; it is
not known when the file stores that attribute name on any object, nor for modules of the
file."""

from __future__ import annotations

import pytest

from gradguard.analysis.values import Grad, Kind
from tests.analysis.test_value_facets import fact_at

_EMBEDDING = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.rnn = nn.LSTM(4, hidden_size=6)
        self.conv = nn.Conv2d(1, 8, 3)
        self.norm = nn.LayerNorm(4)
"""


@pytest.mark.parametrize(
    ("read", "const"),
    [
        ("self.embed.embedding_dim", 4),
        ("self.embed.num_embeddings", 10),
        ("self.rnn.hidden_size", 6),
        ("self.rnn.num_layers", None),  # left to its default
        ("self.conv.out_channels", 8),
    ],
)
def test_a_layer_hyperparameter_is_an_untracked_number(
    read: str, const: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = _EMBEDDING + f"    def size(self):\n        d = {read}  # <- d\n        return d\n"
    value = fact_at(snippet, monkeypatch)
    assert value.kind is Kind.SCALAR
    assert value.grad is Grad.UNTRACKED
    assert value.const == const


@pytest.mark.parametrize("read", ["self.conv.kernel_size", "self.norm.normalized_shape"])
def test_a_size_kept_as_a_tuple_is_a_sequence_of_numbers(
    read: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = _EMBEDDING + f"    def size(self):\n        d = {read}  # <- d\n        return d\n"
    value = fact_at(snippet, monkeypatch)
    assert value.kind is Kind.SEQUENCE
    assert value.items is not None and value.items.kind is Kind.SCALAR


def test_a_head_built_from_a_layer_size_is_self_contained(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = (
        _EMBEDDING
        + "class Head(nn.Module):\n"
        + "    def __init__(self, d):\n"
        + "        super().__init__()\n"
        + "        self.fc = nn.Linear(d, 2)\n"
        + "net = Net()\n"
        + "head = Head(net.embed.embedding_dim)  # <- head\n"
    )
    value = fact_at(snippet, monkeypatch)
    assert value.module is not None and value.module.self_contained


@pytest.mark.parametrize(
    "extra",
    [
        "other = object()\nother.embedding_dim = 3\n",  # the name stored on some object
        "setattr(model, 'anything', 3)\n",  # any name may be stored
    ],
)
def test_unknown_when_the_file_may_store_the_name(
    extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = _EMBEDDING + "net = Net()\n" + extra + "d = net.embed.embedding_dim  # <- d\n"
    assert fact_at(snippet, monkeypatch).kind is Kind.UNKNOWN


def test_an_attribute_of_a_module_of_the_file_is_not_read_from_the_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = "class Block(nn.Module):\n    pass\nblock = Block()\nd = block.hidden_size  # <- d\n"
    assert fact_at(snippet, monkeypatch).kind is not Kind.SCALAR


@pytest.mark.parametrize(
    "line",
    [
        "import math\nd = math.sqrt(x.sum())  # <- d\n",  # a one-element tensor converted
        "import math\nd = math.log(10)  # <- d\n",
        "import math as m\nd = m.floor(2.5)  # <- d\n",
        "import math\nd = math.pi  # <- d\n",
        "from math import e\nd = e  # <- d\n",
    ],
)
def test_math_gives_python_numbers(line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    value = fact_at(line, monkeypatch)
    assert value.kind is Kind.SCALAR
    assert value.grad is Grad.UNTRACKED


def test_math_prod_may_multiply_tensors(monkeypatch: pytest.MonkeyPatch) -> None:
    assert fact_at("import math\nd = math.prod([x, x])  # <- d\n", monkeypatch).kind is not (
        Kind.SCALAR
    )
