"""A `for` loop over a few known elements also runs one pass per element
(`gradguard.analysis.element_passes`), and a test of whether an object is a tensor is known
for a value of known kind (`gradguard.analysis.tensor_tests`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.element_passes import MOST_ELEMENTS, element_passes
from gradguard.analysis.tensor_tests import is_tensor, tensor_test
from gradguard.analysis.values import Grad, Kind, Value
from gradguard.core.engine import check_source

_TRACKED = Value(grad=Grad.TRACKED, kind=Kind.TENSOR)
_NUMBER = Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR)


def _loop(source: str = "for k, v in d.items():\n    pass") -> ast.For:
    loop = ast.parse(source).body[0]
    assert isinstance(loop, ast.For)
    return loop


def test_each_distinct_element_is_a_pass() -> None:
    listed = Value(kind=Kind.SEQUENCE, elements=(_TRACKED, _NUMBER, _TRACKED))
    assert element_passes(_loop(), listed) == (_TRACKED, _NUMBER)


@pytest.mark.parametrize(
    "iterated",
    [
        Value(kind=Kind.SEQUENCE, elements=(_TRACKED, _TRACKED)),  # all alike: one pass
        Value(kind=Kind.SEQUENCE, items=_TRACKED),  # length unknown
        Value(kind=Kind.SEQUENCE, elements=(_TRACKED, _NUMBER) * MOST_ELEMENTS),  # too many
        Value(kind=Kind.MAPPING, elements=(_TRACKED, _NUMBER), fields=("a", "b")),  # keys
        Value(kind=Kind.SEQUENCE, elements=(_TRACKED, _NUMBER), fields=("a", "b")),  # named
        _TRACKED,  # rows of a tensor
    ],
)
def test_no_passes_without_known_distinct_elements(iterated: Value) -> None:
    assert element_passes(_loop(), iterated) is None


def test_no_passes_for_async_loops() -> None:
    listed = Value(kind=Kind.SEQUENCE, elements=(_TRACKED, _NUMBER))
    source = "async def f():\n    async for v in d:\n        pass"
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.AsyncFunctionDef)
    loop = function.body[0]
    assert isinstance(loop, ast.AsyncFor)
    assert element_passes(loop, listed) is None


@pytest.mark.parametrize(
    ("kind", "answer"),
    [
        (Kind.TENSOR, True),
        (Kind.SCALAR, False),
        (Kind.NONE, False),
        (Kind.SEQUENCE, False),
        (Kind.MAPPING, False),
        (Kind.OTHER, False),
        (Kind.INSTANCE, None),  # a class of the file may subclass torch.Tensor
        (Kind.UNKNOWN, None),
    ],
)
def test_is_tensor_by_kind(kind: Kind, answer: bool | None) -> None:
    value = Value(kind=kind)
    assert is_tensor(value) is answer
    known = tensor_test(value)
    assert (None if known is None else known.const) is answer


_LOGGER = """
import numpy as np
import torch
from torch import nn

net = nn.Linear(3, 1)

def log(x, lr):
    metrics = {{"loss": net(x).sum(){detach}, "lr": lr}}
    for name, value in metrics.items():
{body}
"""


def _converted(body: str, *, detach: str = "") -> bool:
    source = _LOGGER.format(detach=detach, body=textwrap.indent(textwrap.dedent(body), " " * 8))
    return any(f.code == "GG502" for f in check_source(source).findings)


@pytest.mark.parametrize(
    "body",
    [
        "print(value.numpy())",
        "if torch.is_tensor(value):\n    value = value.numpy()",
        "if isinstance(value, torch.Tensor):\n    print(np.asarray(value))",
        "if torch.is_tensor(value):\n    pass\nelse:\n    continue\nprint(value.numpy())",
    ],
)
def test_the_pass_of_a_loss_converts_it(body: str) -> None:
    assert _converted(body)


@pytest.mark.parametrize(
    "body",
    [
        "if torch.is_tensor(value):\n    value = value.detach().numpy()",
        "if torch.is_tensor(value):\n    value = value.item()\nprint(np.asarray(value))",
        "if torch.is_tensor(value):\n    continue\nprint(np.asarray(value))",
        "if name == 'lr' or name.endswith('rate'):\n    print(value.numpy())",  # not known
        "for _ in range(2):\n    pass\nprint(value.numpy())",  # a nested loop ends the pass
        "try:\n    pass\nexcept ValueError:\n    continue\nprint(value.numpy())",
    ],
)
def test_what_a_pass_does_not_certainly_reach_is_silent(body: str) -> None:
    assert not _converted(body)


def test_detached_values_are_silent() -> None:
    assert not _converted("print(value.numpy())", detach=".detach()")
