"""One item of a comprehension-built list changed in place, another backpropagated.

`[conv(x) for conv in convs]` computes each item afresh: the ReLU ending each branch keeps
its own output, so changing item 0 in place touches nothing item 1's graph saved. Runs
under torch 2.13.0. Modelled on multi-branch feature extractors whose branch outputs are
adjusted in place (the in-place pitfalls discussed at
https://discuss.pytorch.org/t/backwards-through-a-graph-iteratively-and-efficiently/176817).
"""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Linear(8, 8)


def branch_features(convs, x):
    feats = [conv(x) for conv in convs]
    a = feats[0]
    a += 1
    feats[1].sum().backward()


def gated_views(model, x):
    c, d = [torch.sigmoid(model.embed(x)) for _ in range(2)]
    c.mul_(2)
    d.sum().backward()
    gates = [torch.sigmoid(model.embed(x)) for _ in range(2)]
    gates[0] += 1
    gates[1].sum().backward()


if __name__ == "__main__":
    torch.manual_seed(0)
    branches = [nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU()) for _ in range(2)]
    branch_features(branches, torch.randn(1, 3, 8, 8))
    gated_views(Model(), torch.randn(4, 8))
    print("ok")
