"""The fixed versions: gradients cleared after the update, guarded by `is not None`, or stacked.

Sources (rewritten in our own words, structure kept):
* https://github.com/jcjohnson/pytorch-examples/pull/4 - the fix: zero after the update (and the
  `if` guard proposed in the PR).
* https://github.com/wiseodd/generative-models/issues/26 - the maintainer's `if p.grad is not None`.
* https://github.com/lululxvi/deepxde/pull/1318 - `torch.stack` keeps the history.
"""

import torch
from torch import nn


def two_layer_net(N=8, D_in=10, H=6, D_out=2, steps=3, learning_rate=1e-6):
    x = torch.randn(N, D_in)
    y = torch.randn(N, D_out)
    w1 = torch.randn(D_in, H, requires_grad=True)
    w2 = torch.randn(H, D_out, requires_grad=True)
    for t in range(steps):
        y_pred = x.mm(w1).clamp(min=0).mm(w2)
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            w1 -= learning_rate * w1.grad
            w2 -= learning_rate * w2.grad
        w1.grad.data.zero_()
        w2.grad.data.zero_()
    return w1, w2


def two_layer_net_guarded(N=8, D_in=10, H=6, D_out=2, steps=3, learning_rate=1e-6):
    x = torch.randn(N, D_in)
    y = torch.randn(N, D_out)
    w1 = torch.randn(D_in, H, requires_grad=True)
    for t in range(steps):
        if w1.grad is not None:
            w1.grad.zero_()
        loss = (x.mm(w1).clamp(min=0).sum(1, keepdim=True) - y[:, :1]).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            w1 -= learning_rate * w1.grad
    return w1


def reset_grad(params):
    for p in params:
        if p.grad is not None:
            p.grad.data.zero_()


def stacked_outputs_loss(inputs):
    net = nn.Linear(3, 2)
    out = net(inputs)
    a = out[:, 0].sum()
    b = out[:, 1].sum()
    ab = torch.stack((a, b))
    ab.sum().backward()
    return net.weight.grad
