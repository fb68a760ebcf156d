"""Items of a comprehension each have a graph of their own (`analysis/item_graphs.py`):
the nodes made inside the element are no item's shared history, but the list's; nodes
made before the comprehension stay shared. Each shape was run under torch 2.13.0 (see
tests/corpus/gg202/negatives_comprehension_items_own_graphs.py and
heads_on_one_encoding_backpropagated_apart.py)."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.item_graphs import own_items
from gradguard.analysis.values import Grad, Kind, Value
from tests.analysis.test_value_facets import fact_at


def test_an_item_in_a_loop_keeps_no_node_made_by_its_element(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    item = fact_at(
        """
        outs = [torch.tanh(model(x)) for _ in range(3)]
        for out in outs:
            kept = out  # <- kept
        """,
        monkeypatch,
    )
    assert item.kind is Kind.TENSOR and item.grad is Grad.TRACKED
    assert not item.graph and not item.saved_in


_TWO_READS = """
outs = [torch.tanh(model(x)) for _ in range(3)]
first = outs[0]
again = outs[{index}]
{change}
pair = (first, again)  # <- pair
"""


@pytest.mark.parametrize(
    ("index", "change", "shared"),
    [
        ("0", "", True),  # one item, read twice: its own nodes, the same both times
        ("1", "", False),  # two items: nodes of their own
        ("-3", "", False),  # (maybe the same item: not known, so not shared)
        ("0", "outs.pop(0)", False),  # the list may change: an index names no one item
    ],
)
def test_a_literal_index_reads_one_item_of_its_own(
    index: str, change: str, shared: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    pair = fact_at(_TWO_READS.format(index=index, change=change), monkeypatch)
    assert pair.elements is not None
    first, again = pair.elements
    assert bool(first.graph & again.graph) is shared
    assert bool(first.saved_in & again.saved_in) is shared
    if not change:
        assert len(first.graph) == 2 and len(first.saved_in) == 1  # Linear, tanh (its output)


def test_the_list_runs_through_every_item_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    listed = fact_at("outs = [torch.tanh(model(x)) for _ in range(3)]  # <- outs", monkeypatch)
    assert listed.kind is Kind.SEQUENCE and listed.graph
    halves = fact_at(
        """
        outs = [torch.tanh(model(x)) for _ in range(3)]
        half = outs[:2]  # <- half
        """,
        monkeypatch,
    )
    assert halves.kind is Kind.SEQUENCE and not halves.graph  # not every item's


def test_a_node_made_before_the_comprehension_stays_shared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    h = fact_at("h = torch.tanh(model(x))  # <- h", monkeypatch)
    item = fact_at(
        """
        h = torch.tanh(model(x))
        outs = [torch.sigmoid(h * k) for k in range(2)]
        for out in outs:
            kept = out  # <- kept
        """,
        monkeypatch,
    )
    # the model's and the tanh's nodes, none of the element's own (`*`, sigmoid)
    assert len(h.graph) == 2 and len(item.graph) == 2 and not item.saved_in


def test_a_loop_over_the_items_binds_no_element_node(monkeypatch: pytest.MonkeyPatch) -> None:
    item = fact_at(
        """
        for out in [torch.sigmoid(model(x)) for _ in range(3)]:
            kept = out  # <- kept
        """,
        monkeypatch,
    )
    assert item.grad is Grad.TRACKED and not item.graph and not item.saved_in


def test_values_of_a_dict_comprehension_have_their_own_graphs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    item = fact_at(
        """
        views = {str(i): torch.tanh(model(x)) for i in range(3)}
        view = views["0"]  # <- view
        """,
        monkeypatch,
    )
    assert not item.graph and not item.saved_in


def test_an_item_without_nodes_is_itself() -> None:
    plain = Value(grad=Grad.TRACKED, kind=Kind.TENSOR)
    found = own_items(plain, ast.parse("f(x)", mode="eval").body)
    assert found.item is plain and not found.own
