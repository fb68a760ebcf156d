"""The batch shape of a torch.distributions object, and the shapes its methods return.

A distribution built from tensors has a *batch shape*: one distribution per element of its
parameters. Checked against torch 2.13.0 (`torch/distributions/*.py`):

* the univariate distributions (`Normal(loc, scale)`, `Bernoulli(logits=...)`, `Beta`,
  `Gamma`, ... listed in `SCALAR_EVENT`) broadcast their parameters (`broadcast_all`): the
  batch shape is the broadcast of the parameters' shapes, a Python number counting as a
  0-dim tensor;
* `Categorical(probs=p)` / `Categorical(logits=l)` reads the last dimension as the
  categories: the batch shape is the parameter's shape without its last dimension.

Their event shape is `()`, so `log_prob(value)` is the broadcast of `value`'s shape with the
batch shape (`Categorical.log_prob` broadcasts `value.unsqueeze(-1)` against the logits and
gathers one category), `entropy()` has the batch shape, and `sample()` / `rsample()` without
a sample shape have it too. A policy's `dist.log_prob(actions)` over a batch of ten states
therefore holds ten elements: backpropagating it without a reduction raises "grad can be
implicitly created only for scalar outputs" (GG501).

Multivariate distributions (`MultivariateNormal`, `Dirichlet`, `OneHotCategorical`,
`Independent`, ...) have an event shape and are not modelled: unknown. Pure: reads `ast`
and `Shape`s, never values.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from gradguard.analysis.shapes import UNKNOWN_SHAPE, Shape, broadcast

# Univariate distributions whose parameters broadcast to the batch shape (event shape `()`).
SCALAR_EVENT = frozenset(
    "Normal LogNormal Laplace Cauchy Exponential Beta Gamma Bernoulli Binomial Geometric "
    "Poisson".split()
)
# Distributions over the last dimension of their one parameter (event shape `()`).
LAST_DIM_CATEGORIES = frozenset({"Categorical"})
# Keywords of a distribution's constructor that are not parameters.
_NOT_PARAMETERS = frozenset({"validate_args"})


def batch_shape(name: str, call: ast.Call, arguments: Sequence[Shape]) -> Shape:
    """The batch shape of `call`, which builds the torch.distributions class `name`;
    `arguments` are the shapes of its positional then keyword arguments, in order (as the
    interpreter evaluates them). UNKNOWN_SHAPE when not certain."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return UNKNOWN_SHAPE
    if len(arguments) != len(call.args) + len(call.keywords):
        return UNKNOWN_SHAPE
    names = [None] * len(call.args) + [k.arg for k in call.keywords]
    parameters = [
        shape for shape, kw in zip(arguments, names, strict=True) if kw not in _NOT_PARAMETERS
    ]
    if name in SCALAR_EVENT:
        if not parameters or len(call.args) > 3:
            return UNKNOWN_SHAPE
        return broadcast(parameters)
    if name in LAST_DIM_CATEGORIES:
        if len(parameters) != 1 or len(call.args) > 1:
            return UNKNOWN_SHAPE
        return categories_removed(parameters[0])
    return UNKNOWN_SHAPE


def categories_removed(shape: Shape) -> Shape:
    """`shape` without its last dimension (the categories of a `Categorical`)."""
    if not shape.dims:
        return UNKNOWN_SHAPE
    dims = shape.dims[:-1]
    if not dims and not shape.exact:
        return UNKNOWN_SHAPE
    return Shape(dims, exact=shape.exact)


def method_shape(method: str, call: ast.Call, batch: Shape, arguments: Sequence[Shape]) -> Shape:
    """The shape of `dist.<method>(...)` for a distribution of batch shape `batch` (event
    shape `()`): `log_prob(value)` broadcasts `value` with the batch, `entropy()`,
    `sample()` and `rsample()` have the batch shape. UNKNOWN_SHAPE otherwise."""
    if not batch.known or any(isinstance(a, ast.Starred) for a in call.args):
        return UNKNOWN_SHAPE
    if method == "log_prob" and len(call.args) == 1 and not call.keywords and arguments:
        return broadcast([batch, arguments[0]])
    if method in {"entropy", "sample", "rsample"} and not call.args and not call.keywords:
        return batch
    return UNKNOWN_SHAPE
