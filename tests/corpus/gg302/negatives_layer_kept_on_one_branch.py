"""Look-alikes of a layer kept on one branch of `__init__` that run fine (GG302 silent).

* `forward` reads the projection under a flag of its own (`if self.project:`), which is
  not known here: on the other path nothing keeps `x` before the in-place ReLU;
* the class body binds a default (`proj = None`), so an instance without a projection
  reads None, and `forward` tests it;
* `__init__` stores the attribute on both branches (a convolution or `nn.Identity()`): two
  stores, so what a read finds is not known here;
* the body's ReLU is out of place, so the input the projection kept is never changed.

Each block runs under torch 2.13.0 without error as this file builds it (this file runs
them all). Written for this corpus.
"""

import torch
from torch import nn


class FlaggedRead(nn.Module):
    def __init__(self, c, project):
        super().__init__()
        self.project = project
        self.body = nn.Sequential(nn.ReLU(inplace=True), nn.Conv2d(c, c, 3, padding=1))
        if project:
            self.proj = nn.Conv2d(c, c, 1)

    def forward(self, x):
        if self.project:
            skip = self.proj(x)
        else:
            skip = 0
        return self.body(x) + skip


class ClassDefault(nn.Module):
    proj = None

    def __init__(self, c, project):
        super().__init__()
        self.body = nn.Sequential(nn.ReLU(inplace=True), nn.Conv2d(c, c, 3, padding=1))
        if project:
            self.proj = nn.Conv2d(c, c, 1)

    def forward(self, x):
        skip = self.proj(x) if self.proj is not None else 0
        return self.body(x) + skip


class BothBranches(nn.Module):
    def __init__(self, c, project):
        super().__init__()
        self.body = nn.Sequential(nn.ReLU(inplace=True), nn.Conv2d(c, c, 3, padding=1))
        if project:
            self.proj = nn.Conv2d(c, c, 1)
        else:
            self.proj = nn.Identity()

    def forward(self, x):
        skip = self.proj(x).clone()
        return self.body(x) + skip


class OutOfPlaceBody(nn.Module):
    def __init__(self, c, project=True):
        super().__init__()
        self.body = nn.Sequential(nn.ReLU(), nn.Conv2d(c, c, 3, padding=1))
        if project:
            self.proj = nn.Conv2d(c, c, 1)

    def forward(self, x):
        return self.body(x) + self.proj(x)


def run(block):
    stem = nn.Conv2d(3, 4, 3, padding=1)
    block(stem(torch.randn(2, 3, 8, 8))).sum().backward()


if __name__ == "__main__":
    torch.manual_seed(0)
    run(FlaggedRead(4, False))
    run(ClassDefault(4, False))
    run(BothBranches(4, False))
    run(OutOfPlaceBody(4))
