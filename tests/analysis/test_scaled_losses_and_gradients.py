"""Facts of mixed-precision scaling, of `torch.autograd.grad`'s outputs and inputs, and of
module-level constants unpacked from a tuple."""

from __future__ import annotations

import pytest

from gradguard.analysis.interpreter.torch_calls import _checked_output
from gradguard.analysis.shapes import Shape
from gradguard.analysis.values import Grad, Kind, LossKind, Value
from tests.analysis.test_value_facets import fact_at


def test_a_scaled_loss_keeps_the_losss_autograd_facts_and_shape(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scaled = fact_at(
        """
        scaler = torch.amp.GradScaler("cpu")
        with torch.no_grad():
            loss = (model(torch.randn(4, 2)) - 1).pow(2)
        scaled = scaler.scale(loss)  # <- scaled
        """,
        monkeypatch,
    )
    assert scaled.kind is Kind.TENSOR and scaled.grad is Grad.UNTRACKED
    assert scaled.loss is not None and scaled.loss.kind is LossKind.NO_GRAD
    assert scaled.shape == Shape((4, 2), exact=True)


def test_a_scaled_loss_with_history_has_history(monkeypatch: pytest.MonkeyPatch) -> None:
    scaled = fact_at(
        """
        scaler = torch.cuda.amp.GradScaler()
        scaled = scaler.scale(model(x).sum())  # <- scaled
        """,
        monkeypatch,
    )
    assert scaled.grad is Grad.TRACKED


def test_scale_of_another_object_stays_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    scaled = fact_at(
        """
        def make():
            return object()
        scaler = make()
        scaled = scaler.scale(model(x).sum())  # <- scaled
        """,
        monkeypatch,
    )
    assert scaled.kind is Kind.UNKNOWN and scaled.grad is Grad.UNKNOWN


@pytest.mark.parametrize(
    ("inputs", "count"),
    [
        ("w", 1),  # one tensor: a 1-tuple
        ("[w, b]", 2),
        ("pair", 2),  # a name holding a list of two
    ],
)
def test_autograd_grad_returns_one_gradient_per_input(
    inputs: str, count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    grads = fact_at(
        f"""
        w = torch.randn(2, requires_grad=True)
        b = torch.randn(2, requires_grad=True)
        pair = [w, b]
        grads = torch.autograd.grad((w * b).sum(), {inputs})  # <- grads
        """,
        monkeypatch,
    )
    assert grads.elements is not None and len(grads.elements) == count
    assert all(g.grad is Grad.UNTRACKED for g in grads.elements)


def test_autograd_grad_of_parameters_held_by_an_unknown_name_has_items(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    grads = fact_at(
        """
        def params_of(m):
            return [p for p in m.parameters()]
        params = params_of(model)
        grads = torch.autograd.grad(model(x).sum(), params)  # <- grads
        """,
        monkeypatch,
    )
    assert grads.elements is None and grads.items is not None
    assert grads.items.grad is Grad.UNTRACKED


def test_the_first_output_without_a_graph_decides_a_backward_through_a_sequence() -> None:
    tracked = Value(Grad.TRACKED, Kind.TENSOR)
    cut = Value(Grad.UNTRACKED, Kind.TENSOR)
    assert _checked_output(Value(kind=Kind.SEQUENCE, elements=(tracked, cut))) is cut
    both = Value(kind=Kind.SEQUENCE, elements=(tracked, tracked))
    assert _checked_output(both) is both
    assert _checked_output(Value(kind=Kind.SEQUENCE, items=cut)) is cut
    assert _checked_output(tracked) is tracked


def test_module_constants_unpacked_from_a_tuple_are_known_in_functions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    points = fact_at(
        """
        HEIGHT, WIDTH = 8, 4
        def sample():
            points = torch.randn(HEIGHT, WIDTH)  # <- points
            return points
        sample()
        """,
        monkeypatch,
    )
    assert points.shape == Shape((8, 4), exact=True)


def test_names_unpacked_twice_or_from_a_call_stay_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    points = fact_at(
        """
        HEIGHT, WIDTH = 8, 4
        HEIGHT = 16
        def sample():
            points = torch.randn(HEIGHT, WIDTH)  # <- points
            return points
        sample()
        """,
        monkeypatch,
    )
    assert points.shape.dims[:1] != (8,) and points.shape.dims[:1] != (16,)
