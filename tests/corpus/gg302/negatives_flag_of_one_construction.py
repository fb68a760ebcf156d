"""Look-alikes of a block whose in-place ReLU runs only under a constructor flag: no
instance the backward runs through certainly has the flag on, so nothing is certain.

* `OffOnly` builds the block twice, both times with the flag off.
* `UnusedFlagged` builds a flagged block but its `forward` only runs the unflagged one.
* `LoopBuilt` passes `i == 0` inside a comprehension: the construction's flag is not one
  known bool.
* `Switched` builds the flagged block, then the file turns its flag off from outside.
* `made(flag)` builds the block from a parameter that its calls pass both ways.

Each runs its backward without error (checked with torch 2.13.0 by running this file).
Written for this corpus.
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
            x = self.act(x)
        return self.conv(x) + skip


class OffOnly(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = GatedBlock(3, 8, False)
        self.b = GatedBlock(8, 8, preact=False)

    def forward(self, x):
        return self.b(self.a(x))


class UnusedFlagged(nn.Module):
    def __init__(self):
        super().__init__()
        self.plain = GatedBlock(3, 8, False)
        self.spare = GatedBlock(8, 8, True)

    def forward(self, x):
        return self.plain(x)


class LoopBuilt(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([GatedBlock(3, 3, i == 0) for i in range(2)])

    def forward(self, x):
        return self.blocks[1](x)


class Toggled(nn.Module):
    def __init__(self, cin, cout, gate):
        super().__init__()
        self.gate = gate
        self.proj = nn.Linear(cin, cout)
        self.body = nn.Linear(cin, cout)

    def forward(self, h):
        kept = self.proj(h)
        if self.gate:
            h = torch.relu_(h)
        return self.body(h) + kept


class Switched(nn.Module):
    def __init__(self):
        super().__init__()
        self.low = Toggled(4, 8, False)
        self.high = Toggled(8, 8, True)

    def forward(self, h):
        return self.high(self.low(h))


def made(flag):
    return GatedBlock(3, 3, flag)


def step(model, x):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    opt.zero_grad()
    loss = model(x).mean()
    loss.backward()
    opt.step()


if __name__ == "__main__":
    step(OffOnly(), torch.randn(2, 3, 8, 8))
    step(UnusedFlagged(), torch.randn(2, 3, 8, 8))
    step(LoopBuilt(), torch.randn(2, 3, 8, 8))
    switched = Switched()
    switched.high.gate = False
    step(switched, torch.randn(5, 4))
    step(made(False), torch.randn(2, 3, 8, 8))
    with torch.no_grad():
        made(True)(torch.randn(2, 3, 8, 8))
    print("no error")
