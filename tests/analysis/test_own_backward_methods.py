"""`x.backward(...)` on an instance of a class of the file that defines its own `backward`
method runs that method, not autograd: no backward call is recorded for `x`, and the method
is analysed as a call of it (the backward calls inside it are recorded in its body)."""

from __future__ import annotations

import ast

from gradguard.analysis.model import analyse_module

TRAINER = """
import torch
from torch import nn


class Trainer:
    def __init__(self):
        self.net = nn.Linear(4, 1)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def backward(self, loss):
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()

    def fit(self, x):
        loss = self.net(x).pow(2).mean()
        self.backward(loss)


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


def plain(x):
    w = torch.randn(3, requires_grad=True)
    (w * x).sum().backward()
"""


def _backward_targets() -> list[str]:
    analysis = analyse_module(ast.parse(TRAINER), TRAINER)
    return sorted(ast.unparse(b.target) for b in analysis.backward_calls)


def test_own_backward_method_is_no_autograd_backward() -> None:
    targets = _backward_targets()
    assert "self" not in targets
    # The tensor backward calls stay: the one inside the method and the plain one.
    assert targets == ["(w * x).sum()", "loss"]
