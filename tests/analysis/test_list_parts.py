"""`list_parts`: a slice by literal bounds of a list of known elements holds exactly the
elements Python picks; a store (or augmented assignment) at an int literal index replaces
that element; `outs[0] += v` changes the item itself in place. Each shape was run under
torch 2.13.0 (see tests/corpus/gg302/list_items_changed_in_place.py and
negatives_list_items_not_kept.py)."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.list_parts import changed_item, sliced_elements, with_element
from gradguard.analysis.values import UNKNOWN, Grad, Kind, Value
from tests.analysis.test_value_facets import fact_at

_A = Value(kind=Kind.SCALAR, const=1)
_B = Value(kind=Kind.SCALAR, const=2)
_C = Value(kind=Kind.SCALAR, const=3)
_ABC = (_A, _B, _C)


def _slice(text: str) -> ast.Slice:
    part = ast.parse(f"s[{text}]", mode="eval").body
    assert isinstance(part, ast.Subscript) and isinstance(part.slice, ast.Slice)
    return part.slice


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:", (_B, _C)),
        (":-1", (_A, _B)),
        ("::2", (_A, _C)),
        ("::-1", (_C, _B, _A)),
        ("3:", ()),
        ("-5:1", (_A,)),
        ("k:", None),  # a bound not known
        ("::0", None),  # raises ValueError
        ("True:", None),  # a bool is no int literal here
    ],
)
def test_a_slice_by_literal_bounds_picks_what_python_picks(
    text: str, expected: tuple[Value, ...] | None
) -> None:
    assert sliced_elements(_ABC, _slice(text)) == expected


def _index(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def test_a_store_at_a_literal_index_replaces_that_element() -> None:
    listed = Value(kind=Kind.SEQUENCE, elements=_ABC)
    placed = with_element(listed, _index("-1"), _A)
    assert placed is not None and placed.elements == (_A, _B, _A)
    assert with_element(listed, _index("3"), _A) is None  # IndexError
    assert with_element(listed, _index("i"), _A) is None  # which one is not known
    named = Value(kind=Kind.SEQUENCE, elements=(_A, _B), fields=("values", "indices"))
    assert with_element(named, _index("0"), _C) is None
    appended = Value(kind=Kind.SEQUENCE, items=_A)
    assert with_element(appended, _index("0"), _C) is None
    assert with_element(UNKNOWN, _index("0"), _C) is None


def test_an_augmented_item_of_a_list_is_changed_in_place() -> None:
    target = _index("outs[0]")
    assert isinstance(target, ast.Subscript)
    assert changed_item(Value(kind=Kind.SEQUENCE, elements=(_A,)), target)
    tensor = Value(grad=Grad.TRACKED, kind=Kind.TENSOR)
    assert not changed_item(tensor, target)  # a write into the tensor, told apart
    unknown = _index("outs[k]")
    assert isinstance(unknown, ast.Subscript)
    assert not changed_item(Value(kind=Kind.SEQUENCE, elements=(_A,)), unknown)


def test_a_loop_over_a_slice_binds_the_elements_it_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    rest = fact_at(
        """
        outs = [torch.sigmoid(model(x)), torch.tanh(model(x))]
        rest = outs[1:]  # <- rest
        """,
        monkeypatch,
    )
    assert rest.kind is Kind.SEQUENCE and rest.elements is not None
    (only,) = rest.elements
    assert only.kind is Kind.TENSOR and only.saved_in


def test_an_item_changed_in_place_through_the_list_stays_in_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    outs = fact_at(
        """
        outs = [torch.sigmoid(model(x)), 3]
        outs[0] += 1  # <- outs
        """,
        monkeypatch,
    )
    assert outs.elements is not None
    first, second = outs.elements
    assert first.kind is Kind.TENSOR and first.grad is Grad.TRACKED  # still the list's item
    assert second.const == 3
