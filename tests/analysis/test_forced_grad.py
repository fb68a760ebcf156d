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


# --- a leaf re-wrapped from data whose history is not known ---------------------------------


def _in_step(body: str) -> list[tuple[str, int, LossKind, int]]:
    """`body` as the body of `step(values, opt)`, called with arguments the analysis does
    not know (so `values` may hold anything)."""
    return _forced("def step(values, opt):\n" + textwrap.indent(textwrap.dedent(body), "    "))


def test_a_leaf_made_of_unknown_values_and_backpropagated_as_is() -> None:
    body = """
    loss = torch.tensor(sum(values) / len(values), requires_grad=True)
    opt.zero_grad()
    loss.backward()
    opt.step()
    """
    assert _in_step(body) == [("rewrap", 3, LossKind.REWRAP, 5)]


def test_history_grown_only_from_such_leaves() -> None:
    # `.sum()` and a weighted total of two re-wrapped leaves: their history starts at the
    # first leaf, so the backward reaches nothing the values came from.
    body = """
    a = torch.tensor(values, requires_grad=True).sum()
    b = torch.autograd.Variable(values, requires_grad=True).mean()
    loss = a + 0.5 * b
    loss.backward()
    """
    assert _in_step(body) == [("rewrap", 3, LossKind.REWRAP, 6)]


@pytest.mark.parametrize(
    "body",
    [
        # The model's parameters are in the loss too: history does not start at the leaf.
        "w = torch.tensor(values, requires_grad=True)\n(model(x) * w).sum().backward()\n",
        # The gradient with respect to the leaf is what the code wants.
        "w = torch.tensor(values, requires_grad=True)\n(w ** 2).sum().backward()\nprint(w.grad)\n",
        "w = torch.tensor(values, requires_grad=True)\n"
        "g, = torch.autograd.grad((w ** 2).sum(), [w])\n",
        # A parameter learned by an optimizer.
        "w = torch.tensor(values, requires_grad=True)\nsgd = torch.optim.SGD([w], lr=0.1)\n"
        "(w ** 2).sum().backward()\nsgd.step()\n",
        # Kept by a list an optimizer is built from, or handed back to the caller.
        "w = torch.tensor(values, requires_grad=True)\nparams = [w]\n"
        "sgd = torch.optim.SGD(params, lr=0.1)\n(w ** 2).sum().backward()\nsgd.step()\n",
        "w = torch.tensor(values, requires_grad=True)\n(w ** 2).sum().backward()\nreturn w\n",
        "keep = [torch.tensor(values, requires_grad=True)]\n(keep[0] ** 2).sum().backward()\n",
        # A hook reads the gradient.
        "w = torch.tensor(values, requires_grad=True)\nw.register_hook(print)\n"
        "(w ** 2).sum().backward()\n",
        # Data known never to have had a history: a genuine leaf.
        "w = torch.tensor([1.0, 2.0], requires_grad=True)\n(w ** 2).sum().backward()\n",
        # Re-wrapped without requires_grad: backward raises (GG105's report).
        "w = torch.tensor(values)\nw.sum().backward()\n",
    ],
)
def test_leaves_of_unknown_values_that_are_used(body: str) -> None:
    assert _in_step(body) == []


def test_a_leaf_made_elsewhere_is_not_judged_here() -> None:
    # Made by a helper: it may be a parameter the helper's callers keep and optimize.
    body = """
    def make(values):
        return torch.tensor(values, requires_grad=True)

    def step(values):
        (make(values) * 2).sum().backward()
    """
    assert _forced(body) == []
