"""None placeholders: `self.<attr> = None` in a method of a class marks an attribute as not
set yet. An attribute whose only other store is one statement of one method holds, in any
reader, None or the tensor that method left (`Value.unless_none`); reading `.grad` of it
reads the tensor's. A placeholder next to two other stores, a store of a leaf, or a store
from a nested function leaves the attribute as unknown as before.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import GradRead
from gradguard.analysis.model import analyse_module
from gradguard.analysis.placeholders import none_placeholders
from gradguard.analysis.values import Grad, Kind
from tests.analysis.test_value_facets import PRELUDE, fact_at


def _class(source: str) -> ast.ClassDef:
    node = ast.parse(textwrap.dedent(source)).body[0]
    assert isinstance(node, ast.ClassDef)
    return node


def test_counts_stores_of_none_into_self_per_attribute() -> None:
    cls = _class(
        """
        class Keeper:
            def __init__(self):
                self.last = None
                self.hidden: object = None
                if flag:
                    self.last = None
                self.size = 0
                other.last = None

            def reset(me):
                me.hidden = None

            @staticmethod
            def make(self):
                self.last = None

            def later(self):
                def inner():
                    self.last = None
                return inner
        """
    )
    assert none_placeholders(cls) == {"last": 2, "hidden": 2}


_MODEL = """
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(2, 2)
        self.head = nn.Linear(2, 1)
        self.kept = None

    def forward(self, x):
        self.kept = {store}
        return self.head(self.kept)
{extra}

class Reader:
    def __init__(self, net):
        self.net = net

    def read(self):
        kept = self.net.kept  # <- kept
        grad = self.net.kept.grad  # <- grad
        return grad

enc = Encoder()
enc(x).sum().backward()
Reader(enc).read()
"""


def _kept(monkeypatch: pytest.MonkeyPatch, store: str, extra: str = "") -> tuple[Kind, bool]:
    """Whether `kept` is known as None or a tracked non-leaf tensor."""
    source = _MODEL.format(store=store, extra=extra).replace("  # <- grad", "")
    value = fact_at(source, monkeypatch)
    inner = value.unless_none
    certain = (
        inner is not None
        and inner.kind is Kind.TENSOR
        and inner.grad is Grad.TRACKED
        and inner.leaf is False
    )
    return value.kind, certain


def test_attribute_after_a_placeholder_is_none_or_the_kept_tensor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kind, certain = _kept(monkeypatch, "self.proj(x)")
    assert kind is Kind.UNKNOWN  # `is None` stays undecided
    assert certain


@pytest.mark.parametrize(
    ("store", "extra"),
    [
        # A leaf: backward fills its .grad.
        ("torch.zeros(2, requires_grad=True)", ""),
        # A second method stores another tensor: which one a reader finds is unknown.
        ("self.proj(x)", "\n    def load(self, t):\n        self.kept = t\n"),
    ],
)
def test_a_leaf_or_a_second_store_keeps_it_unknown(
    monkeypatch: pytest.MonkeyPatch, store: str, extra: str
) -> None:
    assert not _kept(monkeypatch, store, extra)[1]


def test_reading_grad_through_the_placeholder_reads_the_tensors() -> None:
    source = PRELUDE + _MODEL.format(store="self.proj(x)", extra="")
    reads = analyse_module(ast.parse(source), source).events.of(GradRead)
    read = next(r for r in reads if ast.unparse(r.target) == "self.net.kept")
    assert read.value.kind is Kind.TENSOR
    assert read.value.grad is Grad.TRACKED
    assert read.value.leaf is False
