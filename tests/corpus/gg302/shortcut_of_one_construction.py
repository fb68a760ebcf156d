"""Residual blocks whose projection shortcut exists only for the constructions whose numbers
call for one, ahead of a body that starts with an in-place ReLU (GG302).

`DownBlock.__init__` keeps `self.proj = nn.Conv2d(...)` when `stride != 1 or cin != cout`
and `self.proj = None` otherwise; `forward` runs the projection when there is one. The class
as a whole cannot tell (its two constructions pass different numbers), but each instance
runs `__init__` once with its own arguments: `DownBlock(8, 16, stride=2)` takes the first
block, so its forward runs the 1x1 convolution, which keeps `x` for its weight gradient, and
then the body's `nn.ReLU(inplace=True)` overwrites `x`: the backward raises "one of the
variables needed for gradient computation has been modified by an inplace operation"
(checked with torch 2.13.0 by running this file). `DownBlock(16, 16, stride=1)` has no
projection and runs fine; only the first construction is certain, and the finding is
reported once, at the body's call in `forward`.

`ModeBlock` decides the same by a string setting (`shortcut="conv"` against `"identity"`),
and its body is an `nn.Sequential` whose in-place ReLU is followed by a block of this file.

Written for this corpus, after Xception-style blocks whose separable-conv stack starts with
a shared in-place ReLU (https://github.com/mapillary/inplace_abn/issues/40 reports the
error).
"""

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
        out = self.body(x)  # expect: GG302
        return out + skip


class Separable(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.depthwise = nn.Conv2d(cin, cin, 3, padding=1, groups=cin)
        self.pointwise = nn.Conv2d(cin, cout, 1)

    def forward(self, x):
        return self.pointwise(self.depthwise(x))


class ModeBlock(nn.Module):
    def __init__(self, cin, cout, shortcut):
        super().__init__()
        if shortcut == "conv":
            self.skip = nn.Conv2d(cin, cout, 1)
        else:
            self.skip = None
        self.body = nn.Sequential(nn.ReLU(inplace=True), Separable(cin, cout))

    def forward(self, x):
        skip = x if self.skip is None else self.skip(x)
        return self.body(x) + skip  # expect: GG302


class DownNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.down = DownBlock(8, 16, stride=2)
        self.keep = DownBlock(16, 16, stride=1)

    def forward(self, x):
        return self.keep(self.down(self.stem(x)))


class ModeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.widen = ModeBlock(8, 16, shortcut="conv")
        self.same = ModeBlock(16, 16, shortcut="identity")

    def forward(self, x):
        return self.same(self.widen(self.stem(x)))


def train_down():
    model = DownNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    opt.zero_grad()
    loss = model(torch.randn(2, 3, 8, 8)).mean()
    loss.backward()
    opt.step()


def train_mode():
    model = ModeNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    opt.zero_grad()
    loss = model(torch.randn(2, 3, 8, 8)).mean()
    loss.backward()
    opt.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    for case in (train_down, train_mode):
        try:
            case()
        except RuntimeError as err:
            assert "modified by an inplace operation" in str(err), err
            print(case.__name__, "raises:", str(err).splitlines()[0][:70])
        else:
            raise SystemExit(f"{case.__name__}: no error")
