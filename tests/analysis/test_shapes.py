"""Shape facts (analysis/shapes.py) as the dataflow attaches them to backpropagated values."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module
from gradguard.analysis.shapes import SCALAR_SHAPE, Shape, broadcast, join_shapes

PRELUDE = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n"


def _shape(body: str) -> Shape:
    """The shape of the value the only backward call of `body` starts from."""
    source = PRELUDE + textwrap.dedent(body)
    calls = analyse_module(ast.parse(source), source).backward_calls
    assert len(calls) == 1, calls
    return calls[0].value.shape


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("(torch.randn(3, requires_grad=True) * 2).backward()", Shape((3,), exact=True)),
        ("torch.zeros((2, 5), requires_grad=True).exp().backward()", Shape((2, 5), exact=True)),
        ("torch.tensor([[1.0, 2.0]], requires_grad=True).backward()", Shape((1, 2), exact=True)),
        ("nn.Linear(10, 2)(torch.randn(4, 10)).backward()", Shape((4, 2), exact=True)),
        ("m = nn.Linear(10, 2)\ny = m(x)\ny.backward()", Shape((2,))),
        ("torch.randn(4, requires_grad=True).sum().backward()", SCALAR_SHAPE),
        ("F.mse_loss(nn.Linear(3, 2)(x), t).backward()", SCALAR_SHAPE),
        (
            "s = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 4))\ns(x).backward()",
            Shape((4,)),
        ),
        (
            "c = nn.MSELoss(reduction='none')\nc(nn.Linear(3, 2)(x), t).backward()",
            Shape((2,)),
        ),
        ("torch.randn(3, 4, requires_grad=True).sum(dim=1).backward()", Shape((3,), exact=True)),
        ("torch.randn(3, 4, requires_grad=True).mean(0).backward()", Shape((4,), exact=True)),
        ("torch.sum(torch.randn(3, 4, requires_grad=True), 1).backward()", Shape((3,), exact=True)),
        (
            "torch.randn(3, 4, requires_grad=True).sum(-1, keepdim=True).backward()",
            Shape((3, 1), exact=True),
        ),
        ("nn.Linear(3, 2)(x).sum(dim=-1).backward()", Shape(())),
        (
            "nn.Linear(3, 2)(torch.randn(5, 3)).amax(dim=-1).backward()",
            Shape((5,), exact=True),
        ),
        ("torch.randn(1, 5, requires_grad=True).sum(dim=1).backward()", Shape((1,), exact=True)),
    ],
)
def test_literal_shapes_propagate(body: str, expected: Shape) -> None:
    assert _shape(body) == expected


@pytest.mark.parametrize(
    "body",
    [
        "def f(x):\n    (x * 2).backward()",  # a parameter
        "for batch in loader:\n    nn.Linear(3, 1)(batch).backward()",  # unknown batch size
        "nn.CrossEntropyLoss(reduction='none')(nn.Linear(3, 4)(x), t).backward()",
        "F.mse_loss(nn.Linear(3, 2)(x), t, None).backward()",  # positional size_average
        "torch.randn(3, 4, requires_grad=True).sum(dim=(0, 1)).backward()",  # several dims
        "torch.randn(3, 4, requires_grad=True).std(1).backward()",  # not a dim-only reduction
        "w = torch.randn(3, 4, requires_grad=True)\nw.sum(1, True).backward()",  # keepdim
        "nn.Linear(3, 2)(x).sum(dim=0).backward()",  # counted from a left not known
        "torch.randn(3, 4, requires_grad=True).sum(dim=k).backward()",  # not a literal
        "torch.randn(n, requires_grad=True).backward()",  # a size that is not a literal
    ],
)
def test_unknown_stays_unknown(body: str) -> None:
    assert not _shape(body).not_single


def test_iterating_a_tensor_does_not_give_its_shape_to_the_rows() -> None:
    body = "for row in torch.randn(3, 4, requires_grad=True):\n    row.backward()"
    assert _shape(body) == Shape()


def test_branches_keep_only_what_both_agree_on() -> None:
    body = """
    if flag:
        y = torch.randn(3, 2, requires_grad=True) * 2
    else:
        y = torch.randn(5, 2, requires_grad=True) * 2
    y.backward()
    """
    assert _shape(body) == Shape((None, 2), exact=True)
    assert _shape(body).not_single


def test_broadcasting_keeps_the_non_single_operand() -> None:
    assert broadcast([Shape((3,), exact=True), Shape()]).not_single
    assert broadcast([Shape((1,), exact=True), SCALAR_SHAPE]).single
    assert broadcast([Shape((4, 1), exact=True), Shape((3,), exact=True)]) == Shape(
        (4, 3), exact=True
    )
    assert join_shapes(Shape((3,), exact=True), SCALAR_SHAPE) == Shape()


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # Sizes held by names, dict entries and tuples of them, as well as literals.
        ("n = 6\nnn.Linear(4, n)(torch.randn(n, 4)).backward()", Shape((6, 6), exact=True)),
        (
            "cfg = {'rows': 5}\n"
            "torch.randn((cfg['rows'], 3), requires_grad=True).sum(dim=1).backward()",
            Shape((5,), exact=True),
        ),
        ("d = 1\ntorch.randn(3, 4, requires_grad=True).sum(dim=d).backward()", Shape((3,), True)),
        # Random integers and permutations have their sizes; comparisons broadcast.
        (
            "w = torch.randn(1, requires_grad=True)\n(w * torch.randint(0, 4, (6, 2))).backward()",
            Shape((6, 2), exact=True),
        ),
        (
            "w = torch.randn(1, requires_grad=True)\n(w * torch.randperm(7)).backward()",
            Shape((7,), True),
        ),
        (
            "w = torch.randn(1, requires_grad=True)\n(w * (torch.randn(5) > 0)).backward()",
            Shape((5,), exact=True),
        ),
    ],
)
def test_sizes_known_through_names(body: str, expected: Shape) -> None:
    assert _shape(body) == expected


@pytest.mark.parametrize(
    "body",
    [
        "def f(n):\n    torch.randn(n, requires_grad=True).backward()",  # a parameter
        # Two paths bind two sizes: only what both agree on.
        "n = 1\nif flag:\n    n = 3\ntorch.randn(n, requires_grad=True).backward()",
        "n = 4\nn = int(s)\ntorch.randn(n, requires_grad=True).backward()",  # rebound
        "cfg = {'n': 4}\ncfg['n'] = k\ntorch.randn(cfg['n'], requires_grad=True).backward()",
    ],
)
def test_sizes_not_known_stay_unknown(body: str) -> None:
    assert not _shape(body).not_single
