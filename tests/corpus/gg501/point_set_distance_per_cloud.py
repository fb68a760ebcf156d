"""A set-to-set distance kept per cloud, sized through `x.shape` (GG501).

Modelled on the shape of https://github.com/WisconsinAIVision/MaskPoint/issues/7, written
anew: a point-set autoencoder reads its batch size from `pts.shape`, reshapes its decoder's
output to `(b, n, 3)`, and scores it with a nearest-neighbour distance reduced over points
only (`torch.cdist`, then `.min(dim=...)` and `.mean(dim=1)`): one value per cloud. The
trainer backpropagates that vector. What makes it certain: `b, n, _ = pts.shape` of a
tensor whose shape is known binds the ints themselves; `torch.cdist` of `(B, P, M)` and
`(B, R, M)` is `(B, P, R)`; `.min(dim=2).values` drops dim 2.

Look-alikes: the same distance averaged over the batch (`.mean()`), backpropagated with
`torch.autograd.backward(dist, grad_tensors)`, reduced by `.min()` without a dim, and the
same model fed clouds whose count the command line sets (`parse_args()`, run below with
one cloud: a one-element loss backpropagates fine).
"""

import argparse
import sys

import torch
from torch import nn


def nearest_distance(pred, target):
    d = torch.cdist(pred, target)
    return d.min(dim=2).values.mean(dim=1) + torch.min(d, 1).values.mean(dim=1)


class PointAutoencoder(nn.Module):
    def __init__(self, points, width=16):
        super().__init__()
        self.points = points
        self.encode = nn.Sequential(nn.Linear(3, width), nn.ReLU())
        self.decode = nn.Linear(width, points * 3)

    def forward(self, pts):
        b, n, _ = pts.shape
        code = self.encode(pts).max(dim=1).values
        rebuilt = self.decode(code).view(b, self.points, 3)
        return nearest_distance(rebuilt, pts)


def per_cloud(clouds):
    model = PointAutoencoder(clouds.size(1))
    loss = model(clouds)
    loss.backward()  # expect: GG501


def averaged(clouds):
    model = PointAutoencoder(clouds.size(1))
    model(clouds).mean().backward()


def weighted(clouds):
    model = PointAutoencoder(clouds.size(1))
    dist = model(clouds)
    torch.autograd.backward(dist, torch.ones_like(dist))


def worst_pair(clouds):
    model = PointAutoencoder(clouds.size(1))
    b, n, _ = clouds.shape
    rebuilt = model.decode(model.encode(clouds).max(dim=1).values).view(b, n, 3)
    torch.cdist(rebuilt, clouds).min().backward()


def from_command_line():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clouds", type=int, default=4)
    args = parser.parse_args()
    clouds = torch.randn(args.clouds, 12, 3)
    model = PointAutoencoder(12)
    model(clouds).backward()


if __name__ == "__main__":
    averaged(torch.randn(4, 12, 3))
    weighted(torch.randn(4, 12, 3))
    worst_pair(torch.randn(4, 12, 3))
    sys.argv = [sys.argv[0], "--clouds", "1"]
    from_command_line()
    try:
        per_cloud(torch.randn(4, 12, 3))
    except RuntimeError as error:
        assert "scalar outputs" in str(error)
    else:
        raise AssertionError("backward of a per-cloud distance ran")
    print("ok")
