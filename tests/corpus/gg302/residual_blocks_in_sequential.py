"""Residual blocks of this file stacked in an nn.Sequential (GG302).

A block adds its input in place to the output of an activation that saved that output
(`sigmoid`, `tanh`, `softmax` keep their result for backward): once the block runs inside an
`nn.Sequential`, backward() through the container raises "one of the variables needed for
gradient computation has been modified by an inplace operation". Calling the container runs
its layers in order, so the block's in-place change is seen through it. The failing fact is
the one of https://github.com/pytorch/pytorch/issues/9391 (a sigmoid's output edited in
place before backward); the block and container are our own; checked under torch 2.13.0.

The look-alikes add out of place, add after a layer that does not keep its output, or put a
torch.nn layer that works in place after the block (not followed: what it changes is not
known here).
"""

import torch
from torch import nn


class GatedBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, x):
        out = torch.sigmoid(self.lin(x))
        out += x  # expect: GG302
        return out


class PlainResidual(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, x):
        out = self.lin(x)
        out += x
        return out


class OutOfPlace(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, x):
        out = torch.tanh(self.lin(x))
        return out + x


def train_gated(steps):
    model = nn.Sequential(GatedBlock(8), nn.ReLU(), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        loss = model(torch.randn(4, 8)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def train_plain(steps):
    model = nn.Sequential(PlainResidual(8), OutOfPlace(8), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        loss = model(torch.randn(4, 8)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


train_plain(2)
try:
    train_gated(1)
except RuntimeError as error:
    assert "modified by an inplace operation" in str(error)
else:
    raise AssertionError("train_gated ran")
