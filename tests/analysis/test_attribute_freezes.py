"""Layers frozen parameter by parameter (`analysis/attribute_freezes.py`):
`emb.weight.requires_grad = False` freezes an embedding (its only parameter), and a
linear layer once `weight` and `bias` both are, in that block, with nothing rebinding the
layer between. A layer keeping a parameter not frozen, a freeze inside an `if`, or a
statement in between that may give the layer a new parameter leaves it trainable."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.attribute_freezes import frozen_by_attribute, parameter_flag_set
from gradguard.core.engine import check_source
from gradguard.core.settings import Settings


def _stmt(text: str) -> ast.stmt:
    return ast.parse(text).body[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("emb.weight.requires_grad = False", ("emb", "weight", True)),
        ("self.fc.bias.requires_grad_(False)", ("self.fc", "bias", True)),
        ("self.fc.bias.requires_grad_()", ("self.fc", "bias", False)),
        ("self.classifier.requires_grad_(False)", None),
        ("emb.weight.requires_grad = True", ("emb", "weight", False)),
        ("emb.weight.requires_grad = flag", None),
        ("emb.requires_grad_(False)", None),
        ("w.requires_grad = False", None),
        ("x = emb.weight.requires_grad", None),
    ],
)
def test_a_statement_setting_a_parameter_flag(
    text: str, expected: tuple[str, str, bool] | None
) -> None:
    found = parameter_flag_set(_stmt(text))
    assert (None if found is None else (ast.unparse(found[0]), found[1], found[2])) == expected


def _frozen(block_text: str) -> frozenset[str]:
    block = ast.parse(textwrap.dedent(block_text)).body
    return frozen_by_attribute(block, block[-1])[1]


@pytest.mark.parametrize(
    ("block", "frozen"),
    [
        ("fc.weight.requires_grad = False", {"weight"}),
        ("fc.weight.requires_grad = False\nfc.bias.requires_grad = False", {"weight", "bias"}),
        (
            "fc.weight.requires_grad = False\nn = 3\nfc.bias.requires_grad_(False)",
            {"weight", "bias"},
        ),
        ("other.weight.requires_grad = False\nfc.bias.requires_grad = False", {"bias"}),
        (
            "fc.weight.requires_grad = False\nfc.weight.requires_grad = True\n"
            "fc.bias.requires_grad = False",
            {"bias"},
        ),
        (
            "fc.weight.requires_grad = False\nfc.weight = make()\nfc.bias.requires_grad = False",
            {"bias"},
        ),
        (
            "fc.weight.requires_grad = False\nfc = nn.Linear(2, 2)\nfc.bias.requires_grad = False",
            {"bias"},
        ),
        (
            "fc.weight.requires_grad = False\nreset(fc)\nfc.bias.requires_grad = False",
            {"bias"},
        ),
        (
            "if cold:\n    fc.weight.requires_grad = False\nfc.bias.requires_grad = False",
            {"bias"},
        ),
    ],
)
def test_the_parameters_a_block_froze_by_then(block: str, frozen: set[str]) -> None:
    assert _frozen(block) == frozen


def test_a_statement_that_freezes_nothing_is_refused() -> None:
    block = ast.parse("fc.weight.requires_grad = True").body
    with pytest.raises(ValueError):
        frozen_by_attribute(block, block[0])


PROGRAM = """
import torch
import torch.nn as nn

layer = {build}
{freezes}
out = layer(torch.ones(2, 4){cast})
out.sum().backward()
"""


@pytest.mark.parametrize(
    ("build", "freezes", "found"),
    [
        ("nn.Embedding(10, 4)", "layer.weight.requires_grad = False", True),
        (
            "nn.Linear(4, 2)",
            "layer.weight.requires_grad = False\nlayer.bias.requires_grad_(False)",
            True,
        ),
        ("nn.Linear(4, 2)", "layer.weight.requires_grad = False", False),
        (
            "nn.Linear(4, 2)",
            "layer.weight.requires_grad = False\nlayer.bias = nn.Parameter(torch.zeros(2))\n"
            "layer.bias.requires_grad = False",
            False,
        ),
        ("nn.Embedding(10, 4)", "layer.weight.requires_grad = True", False),
    ],
)
def test_a_layer_frozen_parameter_by_parameter_has_no_graph(
    build: str, freezes: str, found: bool
) -> None:
    cast = ".long()" if "Embedding" in build else ""
    source = textwrap.dedent(PROGRAM).format(build=build, freezes=freezes, cast=cast)
    findings = check_source(source, settings=Settings(select=("GG104",))).findings
    assert [f.code for f in findings] == (["GG104"] if found else [])
