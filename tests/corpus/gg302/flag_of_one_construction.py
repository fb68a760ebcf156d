"""A block whose in-place ReLU runs only when its constructor is given a flag, built with the
flag on at one construction and off at another (GG302).

`GatedBlock.__init__` keeps `self.preact = preact`. Across the file's two constructions the
flag is both True and False, so the class as a whole cannot tell whether `forward` runs
`self.act(x)`; the instance built as `GatedBlock(16, 16, preact=True)` certainly does. Its
shortcut convolution keeps `x` for its weight gradient, then the in-place ReLU overwrites
`x`, and the backward raises "one of the variables needed for gradient computation has been
modified by an inplace operation" (checked with torch 2.13.0 by running this file). The
second model builds the flagged block by position, in a stack of two.

Written for this corpus, after pre-activation residual stages whose first block is built
without the leading activation (https://github.com/pytorch/pytorch/issues/15428 discusses
the error).
"""

import torch
from torch import nn


class GatedBlock(nn.Module):
    def __init__(self, cin, cout, preact):
        super().__init__()
        self.preact = preact
        self.shortcut = nn.Conv2d(cin, cout, 1, bias=False)
        self.act = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)

    def forward(self, x):
        skip = self.shortcut(x)
        if self.preact:
            x = self.act(x)  # expect: GG302
        return self.conv(x) + skip


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.entry = GatedBlock(3, 16, preact=False)
        self.inner = GatedBlock(16, 16, preact=True)

    def forward(self, x):
        return self.inner(self.entry(x))


class ResidualPair(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = Stage(4, 8, False)
        self.second = Stage(8, 8, True)

    def forward(self, x):
        return self.second(self.first(x))


class Stage(nn.Module):
    def __init__(self, cin, cout, warm):
        super().__init__()
        self.warm = warm
        self.proj = nn.Linear(cin, cout)
        self.body = nn.Linear(cin, cout)

    def forward(self, h):
        kept = self.proj(h)
        if self.warm:
            h = torch.relu_(h)  # expect: GG302
        return self.body(h) + kept


def train_stem():
    model = Stem()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    opt.zero_grad()
    loss = model(torch.randn(2, 3, 8, 8)).mean()
    loss.backward()
    opt.step()


def train_pair():
    model = ResidualPair()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    opt.zero_grad()
    loss = model(torch.randn(5, 4)).pow(2).mean()
    loss.backward()
    opt.step()


if __name__ == "__main__":
    for run in (train_stem, train_pair):
        try:
            run()
        except RuntimeError as err:
            print(run.__name__, "raises:", str(err).splitlines()[0][:80])
