"""What is certain about a tensor's integer dtype beyond where it is made: copies and
reshapes keep it (`ids.detach().clone()`), `is_floating_point()` of such a tensor is a known
False (so a guard takes its else branch), a list comprehension over a few known elements
keeps each element's facts, and `requires_grad_()` on an integer tensor is recorded as an
`IntegerGradRequest` (GG402) wherever the tensor came from.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import IntegerGradRequest
from gradguard.analysis.model import analyse_module
from gradguard.analysis.values import Kind
from tests.analysis.test_value_facets import fact_at

IDS = "ids = torch.randint(0, 9, (2, 3))\nemb = torch.randn(2, 3)\n"


@pytest.mark.parametrize(
    ("expression", "integer"),
    [
        ("ids.detach().clone()", True),
        ("ids.reshape(-1).contiguous()", True),
        ("ids.t().cpu()", True),
        # A cast, arithmetic or a dtype given: no longer certain.
        ("ids.detach().float()", False),
        ("ids.clone() * 0.5", False),
        ("ids.view(torch.float32)", False),
        ("emb.detach().clone()", False),
    ],
)
def test_a_copy_or_reshape_keeps_the_integer_dtype(
    expression: str, integer: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(f"{IDS}y = {expression}  # <- y\n", monkeypatch)
    assert value.kind is Kind.TENSOR
    assert value.integer_dtype is integer


@pytest.mark.parametrize(
    ("receiver", "known"),
    [("ids", False), ("ids.long()", False), ("ids.argmax(1)", False), ("emb", None)],
)
def test_is_floating_point_of_an_integer_tensor_is_known_false(
    receiver: str, known: bool | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(f"{IDS}flag = {receiver}.is_floating_point()  # <- flag\n", monkeypatch)
    assert value.const is known


def test_a_comprehension_over_known_elements_keeps_each_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    value = fact_at(
        f"{IDS}inputs = [ids, emb]\nys = [t.detach().clone() for t in inputs]  # <- ys\n",
        monkeypatch,
    )
    assert value.elements is not None
    assert [e.integer_dtype for e in value.elements] == [True, False]


@pytest.mark.parametrize(
    "comprehension",
    [
        # A condition: which elements remain is not known.
        "[t.detach() for t in inputs if t.dim() > 1]",
        # Elements not known one by one.
        "[t.detach() for t in torch.unbind(ids)]",
    ],
)
def test_other_comprehensions_stay_joined(
    comprehension: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(f"{IDS}inputs = [ids, emb]\nys = {comprehension}  # <- ys\n", monkeypatch)
    assert value.elements is None


def _in_place_requests(body: str) -> list[str]:
    source = "import torch\n" + IDS + textwrap.dedent(body)
    events = analyse_module(ast.parse(source), source).events.of(IntegerGradRequest)
    return [ast.unparse(e.target) for e in events if e.in_place]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("ids.requires_grad_()", ["ids"]),
        ("ids.requires_grad_(True)", ["ids"]),
        ("emb.long().requires_grad_()", ["emb.long()"]),
        ("n = 4\ntorch.arange(n).requires_grad_()", ["torch.arange(n)"]),
        ("pred = emb.argmax(1)\npred.requires_grad_()", ["pred"]),
        ("xs = [x.requires_grad_() for x in (ids, emb)]", ["x"]),
        # Silent: floats, turned off, cast first, guarded, unknown.
        ("emb.requires_grad_()", []),
        ("ids.requires_grad_(False)", []),
        ("ids.float().requires_grad_()", []),
        ("xs = [x.requires_grad_() if x.is_floating_point() else x for x in (ids, emb)]", []),
        ("def f(t):\n    return t.requires_grad_()", []),
        # Other tests of the dtype guard it too, whichever branch.
        ("xs = [x.requires_grad_() if torch.is_floating_point(x) else x for x in (ids, emb)]", []),
        ("xs = [x.requires_grad_() if x.dtype != torch.long else x for x in (ids, emb)]", []),
        ("xs = [x.dtype.is_floating_point and x.requires_grad_() for x in (ids, emb)]", []),
        ("if ids.dtype == torch.float32:\n    ids.requires_grad_()", []),
        ("if ids.dtype == torch.long:\n    pass\nelse:\n    ids.requires_grad_()", []),
        # A test of another tensor's dtype does not guard this one.
        ("if emb.is_floating_point():\n    ids.requires_grad_()", ["ids"]),
        ("y = ids * 0.5\ny.requires_grad_()", []),
    ],
)
def test_requires_grad_in_place_on_an_integer_tensor_is_a_request(
    body: str, expected: list[str]
) -> None:
    assert _in_place_requests(body) == expected


@pytest.mark.parametrize(
    ("made", "integer"),
    [
        ("np.array([1, 2, 3])", True),
        ("np.asarray([[0, 1], [2, 3]])", True),
        ("np.array([True, False])", True),
        ("np.array((n, 4))", True),
        ("np.arange(10)", True),
        ("np.arange(2, n)", True),
        ("np.full((3,), 7)", True),
        # Floats anywhere, no data, data not known, or a float-making factory.
        ("np.array([1, 2.5])", False),
        ("np.array([])", False),
        ("np.array(data)", False),
        ("np.arange(0.5)", False),
        ("np.arange(n, step=0.5)", False),
        ("np.full((3,), 0.5)", False),
        ("np.zeros(3)", False),
        ("np.array([1, 2], dtype=np.float32)", False),
        ("np.array(*rows)", False),
    ],
)
def test_numpy_arrays_of_integer_data_have_an_integer_dtype(
    made: str, integer: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(
        f"""
        import numpy as np
        n = 3
        a = {made}  # <- a
        """,
        monkeypatch,
    )
    assert value.integer_dtype is integer
