"""A layer's weight read right after the layer is built requires grad, even in a file that
freezes parameters somewhere (`FunctionInterpreter._built_just_before`): no code ran in
between that could have frozen it."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import InPlaceChange
from gradguard.analysis.model import analyse_module

_SOURCE = """
import torch
from torch import nn

def fill(E):
    E[:, 0::2] = torch.zeros(3, 2)
    E.detach_()
    E.requires_grad = False

class Embeddings(nn.Module):
    def __init__(self):
        super().__init__()
        {init}
"""


def _leaf_changed_in_place(init: str) -> bool:
    lines = textwrap.dedent(init).strip().splitlines()
    source = textwrap.dedent(_SOURCE).replace("{init}", "\n        ".join(lines))
    changes = analyse_module(ast.parse(source), source).events.of(InPlaceChange)
    return any(c.value.leaf and c.value.grad.name == "TRACKED" for c in changes)


def test_a_weight_read_right_after_its_layer_is_built_requires_grad() -> None:
    assert _leaf_changed_in_place("self.pos = nn.Embedding(3, 4)\nfill(self.pos.weight)")


@pytest.mark.parametrize(
    "init",
    [
        # something ran in between that may have frozen it
        "self.pos = nn.Embedding(3, 4)\nfreeze(self)\nfill(self.pos.weight)",
        "self.pos = nn.Embedding(3, 4)\nself.pos.weight.requires_grad = False\n"
        "fill(self.pos.weight)",
        # a call of this statement runs before the weight is read
        "self.pos = nn.Embedding(3, 4)\nfill(freeze(self) or self.pos.weight)",
        # built on one path only
        "if flag:\n    self.pos = nn.Embedding(3, 4)\nfill(self.pos.weight)",
    ],
)
def test_code_in_between_leaves_the_weight_unknown(init: str) -> None:
    assert not _leaf_changed_in_place(init)
