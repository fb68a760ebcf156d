"""Tensors a loop changes through a list of names (`analysis/listed_tensors.py`): hand-made
parameters switched on by `for p in parameters: p.requires_grad = True` require grad after
the loop, under their own names; a loop that may change their grad state any other way
leaves it unknown, and one that only changes their values (`p.data += step`) leaves it."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.listed_tensors import (
    Listed,
    certain_request,
    grad_changes,
    listed_names,
)
from gradguard.analysis.values import Grad, Kind
from gradguard.core.engine import check_source
from tests.analysis.test_value_facets import fact_at

MADE = """
W1 = torch.randn(2, 4)
b1 = torch.zeros(4)
"""


@pytest.mark.parametrize(
    ("loop", "grad"),
    [
        # The makemore shape: a list bound once, a request first thing in the body.
        ("parameters = [W1, b1]\nfor p in parameters:\n    p.requires_grad = True\n", "tracked"),
        ("for p in (W1, b1):\n    p.requires_grad_()\n", "tracked"),
        ("for p in [W1, b1]:\n    p.requires_grad_(True)\n", "tracked"),
        # Guarded, or switched off: the state is no longer the one before the loop.
        ("for p in [W1, b1]:\n    if p.dim() > 1:\n        p.requires_grad = True\n", "unknown"),
        ("for p in [W1, b1]:\n    p.requires_grad_(False)\n", "unknown"),
        ("for p in [W1, b1]:\n    p.data = p.data.half()\n", "unknown"),
        # Only the values change: the grad state stays what it was (untracked here).
        ("for p in [W1, b1]:\n    p.data += 0.1\n", "untracked"),
        # A list bound twice: either display's names may be the elements, none certainly.
        (
            "parameters = [W1, b1]\nparameters = [b1] + extra\n"
            "for p in parameters:\n    p.requires_grad = True\n",
            "unknown",
        ),
        # A tensor computed without grad is a leaf too (`randn(n) * scale`).
        ("W1 = W1 * 0.1\nfor p in [W1, b1]:\n    p.requires_grad = True\n", "tracked"),
        # A list of unknown contents: nothing is known to change.
        ("for p in make_list():\n    p.requires_grad = True\n", "untracked"),
        # An empty iteration is possible (a list of unknown length): not certain.
        ("for p in [W1, b1][:k]:\n    p.requires_grad = True\n", "untracked"),
    ],
)
def test_a_loop_over_listed_tensors_changes_each_of_them(
    loop: str, grad: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(MADE + loop + "w = W1  # <- w\n", monkeypatch)
    assert value.kind is Kind.TENSOR
    assert value.grad is Grad(grad)
    if grad == "tracked":
        assert value.leaf is True


def test_the_listed_names_are_read_from_a_display_or_its_bindings() -> None:
    body = ast.parse(
        "params = [a, b]\nother = [a, f(b)]\nboth = [a]\nboth = [b] + [c for c in cs]\n"
    ).body
    assert listed_names(ast.Name("params"), body) == Listed(("a", "b"), exact=True)
    assert listed_names(ast.Name("other"), body) == Listed(("a",), exact=False)
    assert listed_names(ast.Name("both"), body) == Listed(("a", "b"), exact=False)
    assert listed_names(ast.Name("missing"), body) is None
    global_body = ast.parse("global params\nparams = [a]\n").body
    assert listed_names(ast.Name("params"), global_body) == Listed(("a",), exact=False)


def test_what_the_loop_body_asks() -> None:
    def body(text: str) -> list[ast.stmt]:
        return ast.parse(textwrap.dedent(text)).body

    assert certain_request(body("p.requires_grad = True\nprint(p)"), "p")
    assert not certain_request(body("print(p)\np.requires_grad = True"), "p")
    assert not certain_request(body("q.requires_grad = True"), "p")
    assert grad_changes(body("if c:\n    p.detach_()"), "p")
    assert not grad_changes(body("p.data += 1\np.grad = None"), "p")


def test_hand_made_parameters_switched_on_in_a_loop_train_without_a_finding() -> None:
    """The shape of karpathy/nn-zero-to-hero's makemore notebooks (73c3fcc, part 2 and 3),
    where the parameters read as not requiring grad made GradGuard blame the label tensor
    `torch.tensor(Y)` for a loss without a graph (a false GG105)."""
    text = textwrap.dedent(
        """\
        import torch
        import torch.nn.functional as F

        def build_dataset(rows, labels):
            X = torch.tensor(rows)
            Y = torch.tensor(labels)
            return X, Y

        Xtr, Ytr = build_dataset(load_rows(), load_labels())
        C = torch.randn((27, 10))
        W1 = torch.randn((30, 27))
        parameters = [C, W1]
        for p in parameters:
            p.requires_grad = True
        for i in range(100):
            emb = C[Xtr]
            logits = emb.view(-1, 30) @ W1
            loss = F.cross_entropy(logits, Ytr)
            for p in parameters:
                p.grad = None
            loss.backward()
            for p in parameters:
                p.data += -0.1 * p.grad
        """
    )
    assert [f.code for f in check_source(text).findings] == []
