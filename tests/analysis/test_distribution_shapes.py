"""Batch shapes of torch.distributions objects (analysis/distribution_shapes.py): pure
functions, and the shapes the dataflow gives what their methods return."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.distribution_shapes import batch_shape, categories_removed, method_shape
from gradguard.analysis.model import analyse_module
from gradguard.analysis.shapes import SCALAR_SHAPE, UNKNOWN_SHAPE, Shape

PRELUDE = (
    "import torch\nfrom torch import nn\n"
    "from torch.distributions import Categorical, Normal, Bernoulli, MultivariateNormal\n"
)


def _call(source: str) -> ast.Call:
    node = ast.parse(source, mode="eval").body
    assert isinstance(node, ast.Call)
    return node


def _backward_shape(body: str) -> Shape:
    """The shape of the value the only backward call of `body` starts from."""
    source = PRELUDE + textwrap.dedent(body)
    calls = analyse_module(ast.parse(source), source).backward_calls
    assert len(calls) == 1, calls
    return calls[0].value.shape


def test_categorical_drops_the_category_dimension() -> None:
    call = _call("Categorical(logits=x)")
    assert batch_shape("Categorical", call, [Shape((10, 3), exact=True)]) == Shape(
        (10,), exact=True
    )
    assert batch_shape("Categorical", call, [Shape((3,), exact=True)]) == SCALAR_SHAPE


def test_categorical_with_unknown_rank_keeps_only_what_is_known() -> None:
    assert categories_removed(Shape((None, 3))) == Shape((None,))
    assert categories_removed(Shape((3,))) == UNKNOWN_SHAPE
    assert categories_removed(Shape(many=True)) == UNKNOWN_SHAPE


def test_univariate_parameters_broadcast() -> None:
    call = _call("Normal(mu, 1.0, validate_args=False)")
    shapes = [Shape((4, 2), exact=True), UNKNOWN_SHAPE, UNKNOWN_SHAPE]
    assert batch_shape("Normal", call, shapes).not_single


def test_multivariate_and_starred_are_unknown() -> None:
    assert batch_shape(
        "MultivariateNormal", _call("MultivariateNormal(m, c)"), [Shape((4, 2), exact=True)] * 2
    ) == (UNKNOWN_SHAPE)
    assert batch_shape("Normal", _call("Normal(*p)"), [Shape((4,), exact=True)]) == (UNKNOWN_SHAPE)


def test_method_shapes() -> None:
    batch = Shape((10,), exact=True)
    log_prob = _call("d.log_prob(a)")
    assert method_shape("log_prob", log_prob, batch, [UNKNOWN_SHAPE]).not_single
    assert method_shape("entropy", _call("d.entropy()"), batch, []) == batch
    assert method_shape("sample", _call("d.sample((5,))"), batch, [UNKNOWN_SHAPE]) == (
        UNKNOWN_SHAPE
    )
    assert method_shape("mean", _call("d.mean()"), batch, []) == UNKNOWN_SHAPE


@pytest.mark.parametrize(
    "body",
    [
        """
        net = nn.Linear(4, 3)
        d = Categorical(logits=net(torch.randn(10, 4)))
        d.log_prob(d.sample()).backward()
        """,
        """
        net = nn.Linear(4, 3)
        (-Categorical(logits=net(torch.randn(10, 4))).entropy()).backward()
        """,
        """
        mu = nn.Linear(4, 2)(torch.randn(6, 4))
        Normal(mu, 0.5).log_prob(torch.zeros(6, 2)).backward()
        """,
    ],
)
def test_per_sample_results_hold_many_elements(body: str) -> None:
    assert _backward_shape(body).not_single


@pytest.mark.parametrize(
    "body",
    [
        # one state: a batch of one distribution
        """
        net = nn.Linear(4, 3)
        d = Categorical(logits=net(torch.randn(4)))
        d.log_prob(d.sample()).backward()
        """,
        # reduced
        """
        net = nn.Linear(4, 3)
        d = Categorical(logits=net(torch.randn(10, 4)))
        d.log_prob(d.sample()).mean().backward()
        """,
        # logits of unknown shape
        """
        def f(logits):
            d = Categorical(logits=logits)
            d.log_prob(d.sample()).backward()
        """,
        # multivariate: not modelled
        """
        mu = nn.Linear(4, 2)(torch.randn(6, 4))
        MultivariateNormal(mu, torch.eye(2)).log_prob(torch.zeros(6, 2)).backward()
        """,
    ],
)
def test_single_or_unknown_results_are_not_many(body: str) -> None:
    assert not _backward_shape(body).not_single
