"""Values a list certainly holds: `a + b` of lists holds every element known on either side
(`Structure.members`), even when the other side's length is unknown; an optimizer handed
such a list is handed each of them, unless code may take one out first.
"""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.events import OptimizedTensor
from gradguard.analysis.list_members import concatenated, taken_from
from gradguard.analysis.model import analyse_module
from gradguard.analysis.values import UNKNOWN, Grad, Kind, Value
from tests.analysis.test_value_facets import PRELUDE, fact_at

W = Value(Grad.TRACKED, Kind.TENSOR, leaf=False)
B = Value(Grad.TRACKED, Kind.TENSOR, leaf=True)
PARAMETERS = Value(kind=Kind.SEQUENCE, items=B)


def test_known_elements_of_either_side_are_members() -> None:
    joined = concatenated(PARAMETERS, Value(kind=Kind.SEQUENCE, elements=(W,)))
    assert joined is not None
    assert joined.kind is Kind.SEQUENCE
    assert joined.elements is None
    assert joined.members == (W,)
    again = concatenated(Value(kind=Kind.SEQUENCE, elements=(B,)), joined)
    assert again is not None
    assert again.members == (B, W)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (PARAMETERS, PARAMETERS),  # nothing known on either side
        (UNKNOWN, Value(kind=Kind.SEQUENCE, elements=(W,))),  # may be a tensor: broadcasting
        (Value(kind=Kind.MAPPING, fields=("w",), elements=(W,)), PARAMETERS),
    ],
)
def test_nothing_known_or_not_two_lists(first: Value, second: Value) -> None:
    assert concatenated(first, second) is None


def test_a_list_of_parameters_and_a_written_out_tensor(monkeypatch: pytest.MonkeyPatch) -> None:
    value = fact_at(
        """
        w = torch.randn(3, requires_grad=True) * 2
        params = list(model.parameters()) + [w]  # <- params
        """,
        monkeypatch,
    )
    assert value.members is not None
    assert [m.grad for m in value.members] == [Grad.TRACKED]


def _optimized(body: str) -> list[str]:
    source = PRELUDE + body
    events = analyse_module(ast.parse(source), source).events.of(OptimizedTensor)
    return [ast.unparse(e.target) for e in events]


def test_optimizer_is_handed_each_member() -> None:
    assert _optimized(
        "w = torch.randn(3, requires_grad=True) * 2\n"
        "params = list(model.parameters()) + [w]\n"
        "opt = torch.optim.SGD(params, lr=0.1)\n"
    ) == ["w"]


@pytest.mark.parametrize(
    "change",
    ["params.pop()", "del params[-1]", "rest = params\nrest.pop()", "keep(params)"],
)
def test_a_list_that_may_lose_an_element_hands_nothing(change: str) -> None:
    assert not _optimized(
        "w = torch.randn(3, requires_grad=True) * 2\n"
        "params = list(model.parameters()) + [w]\n"
        f"{change}\n"
        "opt = torch.optim.SGD(params, lr=0.1)\n"
    )


@pytest.mark.parametrize(
    "params",
    ["[w] + model.parameters()", "tuple(model.parameters()) + [w]", "ps + [w]"],
)
def test_an_operand_that_may_not_be_a_list_hands_nothing(params: str) -> None:
    # A generator or a tuple added to a list raises TypeError before any optimizer runs; a
    # name may hold either.
    assert not _optimized(
        "w = torch.randn(3, requires_grad=True) * 2\n"
        "ps = tuple(model.parameters())\n"
        f"opt = torch.optim.SGD({params}, lr=0.1)\n"
    )


def test_a_comprehension_is_a_list() -> None:
    assert _optimized(
        "w = torch.randn(3, requires_grad=True) * 2\n"
        "opt = torch.optim.SGD([p for p in model.parameters()] + [w], lr=0.1)\n"
    ) == ["w"]


def test_taking_out_forgets_elements_and_members_but_keeps_what_each_may_be() -> None:
    listed = taken_from(Value(kind=Kind.SEQUENCE, elements=(W, B)))
    assert listed.kind is Kind.SEQUENCE
    assert listed.elements is None and listed.members is None
    assert listed.items is not None and listed.items.grad is Grad.TRACKED
    held = taken_from(Value(kind=Kind.SEQUENCE, items=B, members=(W,)))
    assert held.members is None and held.items == B
    # Members say nothing of the other elements: nothing is known of each element.
    assert taken_from(Value(kind=Kind.SEQUENCE, members=(W,))).items is None


@pytest.mark.parametrize(
    "change",
    [
        "params.remove(w)",
        "params.pop()",
        "params.pop(1)",
        "del params[1]",
        "del params[:]",
        "params.clear()",
        "params.sort(key=id)",
        "params.reverse()",
        "params.extend(extra)",
    ],
)
def test_known_elements_are_forgotten_after_a_change(change: str) -> None:
    assert not _optimized(
        "b = torch.zeros(3, requires_grad=True)\n"
        "w = torch.randn(3, requires_grad=True) * 2\n"
        "params = [b, w]\n"
        f"{change}\n"
        "opt = torch.optim.SGD(params, lr=0.1)\n"
    )


@pytest.mark.parametrize("change", ["other.pop()", "del other[0]", "params.count(w)", "params[0]"])
def test_known_elements_are_kept_when_another_list_changes(change: str) -> None:
    assert _optimized(
        "b = torch.zeros(3, requires_grad=True)\n"
        "w = torch.randn(3, requires_grad=True) * 2\n"
        "params = [b, w]\n"
        "other = [b, w]\n"
        f"{change}\n"
        "opt = torch.optim.SGD(params, lr=0.1)\n"
    ) == ["b", "w"]


def test_an_inserted_tensor_joins_what_each_element_may_be(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    value = fact_at(
        """
        w = torch.randn(3, requires_grad=True) * 2
        params = [torch.zeros(3)]
        params.insert(0, w)
        params  # <- params
        """,
        monkeypatch,
    )
    assert value.elements is None
    assert value.items is not None and value.items.grad is not Grad.UNTRACKED


def test_a_deleted_key_forgets_the_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    value = fact_at(
        """
        losses = {"mse": torch.zeros(()), "kl": torch.zeros(())}
        del losses["kl"]
        losses  # <- losses
        """,
        monkeypatch,
    )
    assert value.kind is Kind.MAPPING and value.fields is None
