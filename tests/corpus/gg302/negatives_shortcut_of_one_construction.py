"""Look-alikes of a residual block whose projection shortcut exists only for constructions
whose numbers call for one: no instance that a backward runs through certainly has the
projection, so nothing is certain.

* `SameNet` builds the block twice, both times without a projection (stride 1, same
  channels, once by the default).
* `PartlyKnownNet` builds one block with known numbers (no projection) and one whose stride
  comes from the environment: that construction's `__init__` may take either block of the
  `if`, so only the first is certain, and it has no projection.
* `SpareNet` builds a block with a projection but its `forward` never calls it.
* `DilatedBlock` is given stride 2, but `__init__` turns the stride back to 1 when a flag
  read from the environment asks for dilation: the test reads a name bound twice, so the
  construction's argument does not decide it.
* `ModeNet` passes the string setting that keeps no projection at every construction.

Each runs its backward without error (checked with torch 2.13.0 by running this file).
Written for this corpus.
"""

import os

import torch
from torch import nn


class DownBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        if stride != 1 or cin != cout:
            self.proj = nn.Conv2d(cin, cout, 1, stride=stride, bias=False)
        else:
            self.proj = None
        self.body = nn.Sequential(nn.ReLU(inplace=True), nn.Conv2d(cin, cout, 3, stride, 1))

    def forward(self, x):
        if self.proj is not None:
            skip = self.proj(x)
        else:
            skip = x
        out = self.body(x)
        return out + skip


class SameNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.first = DownBlock(16, 16, stride=1)
        self.second = DownBlock(16, 16)

    def forward(self, x):
        return self.second(self.first(self.stem(x)))


class PartlyKnownNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.known = DownBlock(16, 16, stride=1)
        self.tuned = DownBlock(16, 16, stride=int(os.environ.get("BLOCK_STRIDE", "1")))

    def forward(self, x):
        return self.tuned(self.known(self.stem(x)))


class SpareNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.used = DownBlock(16, 16)
        self.spare = DownBlock(16, 32, stride=2)

    def forward(self, x):
        return self.used(self.stem(x))


class DilatedBlock(nn.Module):
    def __init__(self, cin, cout, stride, dilate):
        super().__init__()
        if dilate:
            stride = 1
        if stride != 1 or cin != cout:
            self.proj = nn.Conv2d(cin, cout, 1, stride=stride)
        else:
            self.proj = None
        self.body = nn.Sequential(nn.ReLU(inplace=True), nn.Conv2d(cin, cout, 3, stride, 1))

    def forward(self, x):
        skip = x if self.proj is None else self.proj(x)
        return self.body(x) + skip


class DilatedNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        dilate = os.environ.get("DILATE", "1") == "1"
        self.block = DilatedBlock(16, 16, 2, dilate)
        self.plain = DilatedBlock(16, 16, 1, False)

    def forward(self, x):
        return self.plain(self.block(self.stem(x)))


class ModeBlock(nn.Module):
    def __init__(self, cin, cout, shortcut):
        super().__init__()
        if shortcut == "conv":
            self.skip = nn.Conv2d(cin, cout, 1)
        else:
            self.skip = None
        self.body = nn.Sequential(nn.ReLU(inplace=True), nn.Conv2d(cin, cout, 3, padding=1))

    def forward(self, x):
        skip = x if self.skip is None else self.skip(x)
        return self.body(x) + skip


class ModeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.first = ModeBlock(16, 16, shortcut="identity")
        self.second = ModeBlock(16, 16, "identity")

    def forward(self, x):
        return self.second(self.first(self.stem(x)))


def train_same():
    model = SameNet()
    model(torch.randn(2, 3, 8, 8)).mean().backward()


def train_partly_known():
    model = PartlyKnownNet()
    model(torch.randn(2, 3, 8, 8)).mean().backward()


def train_spare():
    model = SpareNet()
    model(torch.randn(2, 3, 8, 8)).mean().backward()


def train_dilated():
    model = DilatedNet()
    model(torch.randn(2, 3, 8, 8)).mean().backward()


def train_mode():
    model = ModeNet()
    model(torch.randn(2, 3, 8, 8)).mean().backward()


if __name__ == "__main__":
    for case in (train_same, train_partly_known, train_spare, train_dilated, train_mode):
        case()
    print("no error")
