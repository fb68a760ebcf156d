"""requires_grad forced on tensors without history, then backpropagated:
`analysis/forced_grad.py`."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.facts import LossKind, forced_grad_backprops
from gradguard.analysis.model import analyse_module

HEAD = "import torch\nfrom torch import nn\nmodel = nn.Linear(3, 1)\nx = torch.randn(4, 3)\n"


def _forced(body: str) -> list[tuple[str, int, LossKind, int]]:
    text = HEAD + textwrap.dedent(body)
    analysis = analyse_module(ast.parse(text), text)
    return [
        (f.via, f.stmt.lineno - 4, f.cut.kind, f.backward.stmt.lineno - 4)
        for f in forced_grad_backprops(analysis)
    ]


def test_the_three_forcings_and_their_cuts() -> None:
    body = """
    with torch.no_grad():
        a = model(x).mean()
    a.requires_grad = True
    a.backward()
    b = model(x).mean().detach().requires_grad_()
    b.backward()
    with torch.no_grad():
        c = model(x).mean()
    d = torch.tensor(c, requires_grad=True)
    d.backward()
    """
    assert _forced(body) == [
        ("setattr", 4, LossKind.NO_GRAD, 5),
        ("method", 6, LossKind.DETACH, 7),
        ("rewrap", 10, LossKind.NO_GRAD, 11),
    ]


def test_forcing_inside_the_block_of_the_cut() -> None:
    body = """
    with torch.no_grad():
        loss = model(x).mean()
        loss.requires_grad_(True)
    loss.backward()
    """
    assert _forced(body) == [("method", 4, LossKind.NO_GRAD, 5)]


def test_genuine_leaves_and_inputs_are_not_forcings_of_a_loss() -> None:
    body = """
    w = torch.randn(3)
    w.requires_grad = True
    w.backward(torch.ones(3))
    x_adv = x.detach().requires_grad_()
    loss = model(x_adv).mean()
    loss.backward()
    data = torch.tensor([1.0, 2.0], requires_grad=True)
    data.sum().backward()
    """
    assert _forced(body) == []


def test_replaced_data_rebinding_and_backward_before_the_forcing() -> None:
    body = """
    with torch.no_grad():
        a = model(x).mean()
    a.requires_grad = True
    a.data = model(x).mean()
    a.backward()
    with torch.no_grad():
        b = model(x).mean()
    b.requires_grad_()
    b = model(x).mean()
    b.backward()
    """
    assert _forced(body) == []


@pytest.mark.parametrize(
    ("made", "root_kept"),
    [
        ("torch.as_tensor((a, b))", True),  # tensors with history, re-wrapped
        ("torch.tensor([a, b])", True),
        ("torch.tensor(a.item())", False),  # a number: GG109's forcing on a cut value
        ("torch.as_tensor([[0.5, 1.0]])", False),  # plain numbers: a genuine input leaf
    ],
)
def test_a_forced_leaf_keeps_a_rewrap_of_tensors_as_its_root(made: str, root_kept: bool) -> None:
    """`t.requires_grad = True` on a re-wrapped list of tensors with history leaves a leaf
    whose root is still that re-wrap (`values.forced_leaf`), as `requires_grad=True` in the
    call would."""
    source = textwrap.dedent(
        f"""
        import torch
        net = torch.nn.Linear(3, 2)
        out = net(torch.ones(4, 3))
        a, b = out[:, 0].sum(), out[:, 1].sum()
        ab = {made}
        ab.requires_grad = True
        ab.sum().backward()
        """
    )
    (backward,) = analyse_module(ast.parse(source), source).backward_calls
    loss = backward.value.loss
    assert (loss is not None and loss.kind is LossKind.REWRAP) is root_kept
