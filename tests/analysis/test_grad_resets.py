"""Gradients a `zero_grad()` has just set to None (`analysis/grad_resets.py`): a read of
`p.grad` over a module's parameters after `optimizer.zero_grad()` or `model.zero_grad()`,
with nothing between that may run backward, fails on every iteration. The look-alikes stay
unknown: zeros kept by `set_to_none=False`, a backward (plain, functional, or in a closure
the optimizer runs) before the read, a guard, an optimizer over other tensors, a class of
the file with its own `zero_grad`, a model rebound."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module
from gradguard.analysis.unfilled_grads import unfilled_grad_reads


def _reads(source: str) -> list[tuple[int, str, bool]]:
    text = textwrap.dedent(source)
    tree = ast.parse(text)
    return [
        (read.use.stmt.lineno, read.created, read.reset)
        for read in unfilled_grad_reads(analyse_module(tree, text))
    ]


_TRAINED = """
import torch
from torch import nn

def fit(net, data):
    net(data[0]).sum().backward()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    for x in data:
        {body}
"""


def _fit(*lines: str) -> str:
    return _TRAINED.format(body="\n        ".join(lines))


@pytest.mark.parametrize(
    "read",
    [
        "norms = [p.grad.norm() for p in net.parameters()]",
        "total = sum(p.grad.norm() for p in net.parameters())",
        "for name, p in net.named_parameters(): print(name, p.grad.data.std())",
        "for p in net.encoder.parameters(): p.grad.mul_(0.5)",
    ],
)
def test_a_read_right_after_the_optimizer_reset(read: str) -> None:
    source = _fit("optimizer.zero_grad()", "out = net.weight * 2", read, "out.sum().backward()")
    assert _reads(source) == [(11, "optimizer.zero_grad()", True)]


def test_set_to_none_written_out() -> None:
    source = _fit(
        "optimizer.zero_grad(set_to_none=True)", "print([p.grad.norm() for p in net.parameters()])"
    )
    assert _reads(source) == [(10, "optimizer.zero_grad()", True)]


@pytest.mark.parametrize(
    "lines",
    [
        # Zeros, not None.
        (
            "optimizer.zero_grad(set_to_none=False)",
            "print([p.grad.norm() for p in net.parameters()])",
        ),
        # A backward fills the gradients first, or might (unknown forward, closure step).
        (
            "optimizer.zero_grad()",
            "net(x).sum().backward()",
            "print([p.grad.norm() for p in net.parameters()])",
        ),
        (
            "optimizer.zero_grad()",
            "torch.autograd.backward(net(x).sum())",
            "print([p.grad.norm() for p in net.parameters()])",
        ),
        (
            "optimizer.zero_grad()",
            "optimizer.step(lambda: net(x).sum().backward())",
            "print([p.grad.norm() for p in net.parameters()])",
        ),
        (
            "optimizer.zero_grad()",
            "helper(net)",
            "print([p.grad.norm() for p in net.parameters()])",
        ),
        # Guarded.
        (
            "optimizer.zero_grad()",
            "print([p.grad.norm() for p in net.parameters() if p.grad is not None])",
        ),
        (
            "optimizer.zero_grad()",
            "for p in net.parameters():\n            if p.grad is not None: p.grad.zero_()",
        ),
        # The reset comes after the read, or only on some paths.
        ("print([p.grad.norm() for p in net.parameters()])", "optimizer.zero_grad()"),
        ("if x is None: optimizer.zero_grad()", "print([p.grad.norm() for p in net.parameters()])"),
        # A module reset of a parameter: the class may be anything.
        ("net.zero_grad()", "print([p.grad.norm() for p in net.parameters()])"),
    ],
)
def test_look_alikes_stay_unknown(lines: tuple[str, ...]) -> None:
    assert _reads(_fit(*lines)) == []


def test_an_optimizer_over_other_tensors() -> None:
    source = """
    import torch
    from torch import nn

    def fit(net, head, data):
        net(data[0]).sum().backward()
        optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
        optimizer.zero_grad()
        print([p.grad.norm() for p in net.parameters()])
    """
    assert _reads(source) == []


def test_a_model_rebound_after_the_optimizer_was_made() -> None:
    source = """
    import torch
    from torch import nn

    def fit(data):
        net = nn.Linear(2, 1)
        optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
        net(data[0]).sum().backward()
        net = torch.load("trained.pt")
        optimizer.zero_grad()
        print([p.grad.norm() for p in net.parameters()])
    """
    assert _reads(source) == []


def test_a_class_of_the_file_clearing_its_own_way() -> None:
    source = """
    import torch
    from torch import nn

    class Net(nn.Linear):
        def zero_grad(self, set_to_none=True):
            pass

    def fit(data):
        net = Net(2, 1)
        net(data[0]).sum().backward()
        net.zero_grad()
        print([p.grad.norm() for p in net.parameters()])
    """
    assert _reads(source) == []


def test_a_module_built_in_scope_reset_by_itself() -> None:
    source = """
    import torch
    from torch import nn

    def fit(data):
        net = nn.Linear(2, 1)
        for x in data:
            net(x).sum().backward()
            net.zero_grad()
            print([p.grad.norm() for p in net.parameters()])
    """
    assert _reads(source) == [(10, "net.zero_grad()", True)]


def test_a_helper_called_after_the_reset() -> None:
    source = """
    import torch
    from torch import nn

    def log_grads(model):
        for name, p in model.named_parameters():
            print(name, p.grad.norm())

    def fit(net, data):
        net(data[0]).sum().backward()
        optimizer = torch.optim.Adam(net.parameters())
        for x in data:
            optimizer.zero_grad()
            log_grads(net)
            net(x).sum().backward()
            optimizer.step()
    """
    assert _reads(source) == [(7, "optimizer.zero_grad()", True)]


def test_a_helper_also_called_where_no_reset_precedes() -> None:
    source = """
    import torch
    from torch import nn

    def log_grads(model):
        for name, p in model.named_parameters():
            print(name, p.grad.norm())

    def fit(net, data):
        net(data[0]).sum().backward()
        log_grads(net)
        optimizer = torch.optim.Adam(net.parameters())
        optimizer.zero_grad()
        log_grads(net)
    """
    assert _reads(source) == []


_HANDED = """
import torch
from torch import nn

def fit(model, optimizer, data):
    for x in data:
        optimizer.zero_grad()
        print([p.grad.norm() for p in model.parameters()])
        model(x).sum().backward()
        optimizer.step()

def main(data):
    net = nn.Linear(2, 1)
    head = nn.Linear(1, 1)
    net(data[0]).sum().backward()
    {made}
    fit(net, data=data, {passed})
"""


@pytest.mark.parametrize(
    ("made", "passed", "found"),
    [
        ("opt = torch.optim.SGD(net.parameters(), lr=0.1)", "optimizer=opt", True),
        ("opt = torch.optim.Adam(net.parameters())", "optimizer=opt", True),
        ("opt = torch.optim.SGD(head.parameters(), lr=0.1)", "optimizer=opt", False),
        ("opt = make_optimizer(net)", "optimizer=opt", False),
        ("opt = torch.optim.SGD(net.parameters()); opt = other", "optimizer=opt", False),
        ("opt = torch.optim.SGD(net.parameters())", "optimizer=make(opt)", False),
    ],
)
def test_an_optimizer_handed_down(made: str, passed: str, found: bool) -> None:
    source = _HANDED.format(made=made, passed=passed)
    expected = [(8, "optimizer.zero_grad()", True)] if found else []
    assert _reads(source) == expected


def test_an_optimizer_handed_down_by_one_caller_only() -> None:
    source = (
        _HANDED.format(
            made="opt = torch.optim.SGD(net.parameters(), lr=0.1)", passed="optimizer=opt"
        )
        + "\ndef other(data, opt):\n    fit(nn.Linear(2, 1), opt, data)  # another model\n"
    )
    assert _reads(source) == []


_CLIP = """
import math

import torch
from torch import nn

def total_norm(params, limit):
    {first}
    norm = math.sqrt(sum(p.grad.norm().item() ** 2 for p in params))
    return norm

def fit(model, optimizer, data):
    for x in data:
        loss = model(x).sum()
        optimizer.zero_grad()
        total_norm({passed}, 1.0)
        loss.backward()
        optimizer.step()

def main(data):
    net = nn.Linear(2, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    fit(net, opt, data)
"""


@pytest.mark.parametrize(
    ("first", "passed", "found"),
    [
        ("params = list(params)", "model.parameters()", True),
        ("params = list(params)", "model.encoder.parameters()", True),
        # The generator is walked empty before the read.
        ("print(len(list(params)))", "model.parameters()", False),
        ("params = [p for p in params if p.requires_grad]", "model.parameters()", False),
        # Parameters of another model, or not parameters at all.
        ("pass", "nn.Linear(2, 1).parameters()", False),
        ("pass", "model.buffers()", False),
    ],
)
def test_parameters_handed_to_a_helper_after_the_reset(
    first: str, passed: str, found: bool
) -> None:
    source = _CLIP.format(first=first, passed=passed)
    expected = [(9, "optimizer.zero_grad()", True)] if found else []
    assert _reads(source) == expected
