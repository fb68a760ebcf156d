"""An optimizer built on the parameters of several modules knows each of them
(`OptimizedParameters.others`): `list(E.parameters()) + list(G.parameters())`,
`itertools.chain(...)`, `[*E.parameters(), *G.parameters()]`; in a method, through what
`__init__` kept. Anything else in the list, a re-bound module, or a shadowed `list`
leaves what it holds unknown."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import OptimizerCall
from gradguard.analysis.model import analyse_module

PRELUDE = """
import itertools
import torch
from torch import nn
E, G = nn.Linear(3, 2), nn.Linear(2, 3)
w = torch.zeros(2, requires_grad=True)
"""


def _held(source: str) -> tuple[str, ...] | None:
    """The keys the optimizer stepped last holds, its own first; None when not known."""
    text = textwrap.dedent(PRELUDE) + textwrap.dedent(source)
    analysis = analyse_module(ast.parse(text), text)
    steps = [e for e in analysis.events.of(OptimizerCall) if e.method == "step"]
    held = steps[-1].value.optimizes
    if held is None:
        return None
    return (held.key, *(key for key, _ in held.others))


@pytest.mark.parametrize(
    ("params", "held"),
    [
        ("E.parameters()", ("E",)),
        ("list(E.parameters()) + list(G.parameters())", ("E", "G")),
        ("itertools.chain(G.parameters(), E.parameters())", ("G", "E")),
        ("[*E.parameters(), *G.parameters()]", ("E", "G")),
        # Look-alikes: a tensor added, a module given twice, a non-module.
        ("list(E.parameters()) + [w]", None),
        ("list(E.parameters()) + list(E.parameters())", None),
        ("list(E.parameters()) + list(w.parameters())", None),
        ("[*E.parameters(), w]", None),
    ],
)
def test_the_modules_an_optimizer_is_built_on(params: str, held: tuple[str, ...] | None) -> None:
    assert _held(f"opt = torch.optim.Adam({params})\nopt.step()\n") == held


def test_a_shadowed_list_makes_it_unknown() -> None:
    source = (
        "def list(x):\n    return [w]\n"
        "opt = torch.optim.Adam(list(E.parameters()) + list(G.parameters()))\nopt.step()\n"
    )
    assert _held(source) is None


def test_re_binding_a_further_module_makes_it_unknown() -> None:
    source = (
        "opt = torch.optim.Adam(list(E.parameters()) + list(G.parameters()))\n"
        "G = nn.Linear(2, 3)\nopt.step()\n"
    )
    assert _held(source) is None


TRAINER = """
class Trainer:
    def __init__(self):
        self.E = nn.Linear(3, 2)
        self.G = nn.Linear(2, 3)
        self.opt = torch.optim.Adam(list(self.E.parameters()) + list(self.G.parameters()))
{extra}
    def fit(self):
        self.opt.step()

Trainer().fit()
"""


@pytest.mark.parametrize(
    ("extra", "held"),
    [
        ("", ("self.E", "self.G")),
        # A further module stored again elsewhere: what the optimizer holds is open.
        ("    def reset(self):\n        self.G = nn.Linear(2, 3)\n", None),
    ],
)
def test_a_kept_optimizer_of_several_modules(extra: str, held: tuple[str, ...] | None) -> None:
    assert _held(TRAINER.format(extra=extra)) == held
