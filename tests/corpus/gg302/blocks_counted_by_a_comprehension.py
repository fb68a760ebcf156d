"""The last of a stack of residual blocks built by a comprehension over a known range
keeps its output, and the model then adds its input into that output in place (GG302).

Each block ends in `nn.ReLU()`, which keeps its own result for the backward pass. The
model holds `nn.ModuleList([ResBlock(c) for _ in range(3)])` (or a range of an `__init__`
default no construction passes, or a generator expression over `range(2, 4)`): three, two
and two blocks, so `for block in self.blocks:` certainly runs, the hidden state after the
loop is the last block's ReLU result, and `h += x` changes what that ReLU saved. backward()
raises "one of the variables needed for gradient computation has been modified by an
inplace operation" (checked with torch 2.13.0 by running this file). Had the loop run no
block, `h` would be the stem's output, which nothing keeps.

The blocks are the usual conv/batch-norm residual block (as in torchvision's ResNet
`BasicBlock`), written here as linear layers; the stack and the in-place skip are ours.
"""

import torch
from torch import nn


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.lin = nn.Linear(c, c)
        self.bn = nn.BatchNorm1d(c)
        self.relu = nn.ReLU()

    def forward(self, x):
        out = self.bn(self.lin(x))
        out += x
        return self.relu(out)


class ListStack(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.stem = nn.Linear(c, c)
        self.blocks = nn.ModuleList([ResBlock(c) for _ in range(3)])
        self.head = nn.Linear(c, 1)

    def forward(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = block(h)
        h += x  # expect: GG302
        return self.head(h)


class DefaultDepthStack(nn.Module):
    def __init__(self, c, depth=2):
        super().__init__()
        self.stem = nn.Linear(c, c)
        self.body = nn.ModuleList([ResBlock(c) for _ in range(depth)])
        self.head = nn.Linear(c, 1)

    def forward(self, x):
        h = self.stem(x)
        for block in self.body:
            h = block(h)
        h += x  # expect: GG302
        return self.head(h)


class GeneratorStack(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.stem = nn.Linear(c, c)
        self.blocks = nn.ModuleList(ResBlock(c) for i in range(2, 4))
        self.head = nn.Linear(c, 1)

    def forward(self, x):
        h = self.stem(x)
        for i, block in enumerate(self.blocks):
            h = block(h)
        h += x  # expect: GG302
        return self.head(h)


def fails(run):
    try:
        run()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError(f"{run.__name__} trained")


def train_list():
    model = ListStack(8)
    loss = model(torch.randn(4, 8)).pow(2).mean()
    loss.backward()


def train_default_depth():
    model = DefaultDepthStack(8)
    loss = model(torch.randn(4, 8)).pow(2).mean()
    loss.backward()


def train_generator():
    model = GeneratorStack(8)
    loss = model(torch.randn(4, 8)).pow(2).mean()
    loss.backward()


fails(train_list)
fails(train_default_depth)
fails(train_generator)
