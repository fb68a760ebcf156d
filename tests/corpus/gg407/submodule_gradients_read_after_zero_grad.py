"""Gradients of one part of a model read between `zero_grad()` and `backward()` (GG407).

A trainer that clips (or measures) the gradients of a shared trunk hands the trunk's
parameters to a helper: `clip_trunk(net.trunk.parameters(), 1.0)`. The parameters of a
submodule are parameters of the model, so after `optimizer.zero_grad()` (which sets them to
None since torch 2.0) the helper finds None when it runs before the step's own backward. The
shape of Cranial-XIX/FAMO#4 (shared-parameter clipping called before `loss.backward()`):
https://github.com/Cranial-XIX/FAMO/issues/4

Each case raises on its first step:
AttributeError: 'NoneType' object has no attribute 'norm' (or 'abs')
"""

import torch
from torch import nn

torch.manual_seed(0)


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(6, 12), nn.Tanh())
        self.left = nn.Linear(12, 1)
        self.right = nn.Linear(12, 1)

    def forward(self, x):
        shared = self.trunk(x)
        return self.left(shared), self.right(shared)


def clip_trunk(weights, limit):
    weights = list(weights)
    norm = sum(w.grad.norm() ** 2 for w in weights) ** 0.5  # expect: GG407
    for w in weights:
        w.grad.mul_(min(1.0, limit / (float(norm) + 1e-6)))  # expect: GG407
    return norm


def largest_entry(tensors):
    top = 0.0
    for t in tensors:
        top = max(top, t.grad.abs().max().item())  # expect: GG407
    return top


def fit(net, optimizer, inputs, a, b):
    for step in range(3):
        out_a, out_b = net(inputs)
        loss = ((out_a - a) ** 2).mean() + ((out_b - b) ** 2).mean()
        optimizer.zero_grad()
        clip_trunk(net.trunk.parameters(), 1.0)
        loss.backward()
        optimizer.step()


def fit_reporting(net, inputs, a):
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    for step in range(2):
        optimizer.zero_grad()
        print(step, largest_entry(net.left.parameters()))
        ((net(inputs)[0] - a) ** 2).mean().backward()
        optimizer.step()


def fit_case():
    inputs, a, b = torch.randn(8, 6), torch.randn(8, 1), torch.randn(8, 1)
    net = TwoHeads()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    fit(net, optimizer, inputs, a, b)


def reporting_case():
    inputs, a = torch.randn(8, 6), torch.randn(8, 1)
    net = TwoHeads()
    fit_reporting(net, inputs, a)


if __name__ == "__main__":
    failures = 0
    for case in (fit_case, reporting_case):
        try:
            case()
        except AttributeError as error:
            print(case.__name__, "AttributeError:", error)
            failures += 1
    assert failures == 2
