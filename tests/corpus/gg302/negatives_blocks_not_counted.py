"""Look-alikes of `blocks_counted_by_a_comprehension.py` where the stack may hold no block
(GG302 silent).

Each model adds its input in place into the hidden state after a loop over its blocks; that
fails only when a block ran (the last block's ReLU keeps its result). Here the number of
blocks is not certain: the range's bound comes from the environment, the comprehension has
an `if` clause that may drop every block, the range is empty (`range(0)`: the loop never
runs and `h` stays the stem's output, which nothing keeps), or code of the file empties the
list after building it. Each of them trains as written (checked with torch 2.13.0 by
running this file).
"""

import os

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


class DepthFromEnvironment(nn.Module):
    def __init__(self, c, depth):
        super().__init__()
        self.stem = nn.Linear(c, c)
        self.blocks = nn.ModuleList([ResBlock(c) for _ in range(depth)])
        self.head = nn.Linear(c, 1)

    def forward(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = block(h)
        h += x
        return self.head(h)


class FilteredBlocks(nn.Module):
    def __init__(self, c, keep):
        super().__init__()
        self.stem = nn.Linear(c, c)
        self.blocks = nn.ModuleList([ResBlock(c) for i in range(4) if i in keep])
        self.head = nn.Linear(c, 1)

    def forward(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = block(h)
        h += x
        return self.head(h)


class NoBlocks(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.stem = nn.Linear(c, c)
        self.blocks = nn.ModuleList([ResBlock(c) for _ in range(0)])
        self.head = nn.Linear(c, 1)

    def forward(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = block(h)
        h += x
        return self.head(h)


class EmptiedLater(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.stem = nn.Linear(c, c)
        self.blocks = nn.ModuleList([ResBlock(c) for _ in range(3)])
        self.head = nn.Linear(c, 1)

    def forward(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = block(h)
        h += x
        return self.head(h)


def train_from_environment():
    model = DepthFromEnvironment(8, int(os.environ.get("GG_DEPTH", "0")))
    loss = model(torch.randn(4, 8)).pow(2).mean()
    loss.backward()


def train_filtered():
    model = FilteredBlocks(8, keep=())
    loss = model(torch.randn(4, 8)).pow(2).mean()
    loss.backward()


def train_none():
    model = NoBlocks(8)
    loss = model(torch.randn(4, 8)).pow(2).mean()
    loss.backward()


def train_emptied():
    model = EmptiedLater(8)
    del model.blocks[:]
    loss = model(torch.randn(4, 8)).pow(2).mean()
    loss.backward()


train_from_environment()
train_filtered()
train_none()
train_emptied()
