"""Numbers out of a tensor with history stay that data when Python's builtins copy or reorder
them (`converted_numbers.rearranged`): `sorted(losses.tolist())`, `list(...)`, `tuple(...)`
and a slice of those give the same numbers, so a tensor built from them has lost that
history (GG102)."""

from __future__ import annotations

import pytest

from gradguard.analysis.converted_numbers import converted_from_history, rearranged
from gradguard.analysis.values import Grad, Kind, Loss, LossKind, Value
from tests.analysis.test_value_facets import fact_at

LOSSES = "losses = (model(x) ** 2).sum(1)\n"


@pytest.mark.parametrize(
    "expression",
    [
        "sorted(losses.tolist(), reverse=True)",
        "sorted(losses.tolist(), key=abs)[:2]",
        "list(losses.tolist())",
        "tuple(losses.tolist())[1:]",
    ],
)
def test_copies_and_orderings_of_converted_numbers(
    expression: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(f"{LOSSES}kept = {expression}  # <- kept\n", monkeypatch)
    assert converted_from_history(value) is not None


@pytest.mark.parametrize(
    "expression",
    [
        # Numbers of a tensor that never had a history, or of a detached one.
        "sorted(torch.randn(3).tolist())",
        "sorted(losses.detach().tolist())",
        # Not a copy of the one iterable.
        "sorted(losses.tolist() + [1.0])[:1] if False else len(losses.tolist())",
    ],
)
def test_other_data_gives_no_reason(expression: str, monkeypatch: pytest.MonkeyPatch) -> None:
    value = fact_at(f"{LOSSES}kept = {expression}  # <- kept\n", monkeypatch)
    assert converted_from_history(value) is None


def test_rearranged_needs_one_positional_argument() -> None:
    loss = Loss(LossKind.CONVERSION, None, ".tolist()", converted_history=True)  # type: ignore[arg-type]
    data = Value(grad=Grad.UNTRACKED, kind=Kind.OTHER, loss=loss)
    assert rearranged("sorted", data, 1) is not None
    assert rearranged("sorted", data, 2) is None
    assert rearranged("reversed", data, 1) is None
    assert rearranged("list", Value(kind=Kind.OTHER), 1) is None
