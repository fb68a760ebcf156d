"""A tensor with history stored on `self` in `__init__`, handed to an optimizer by another
method (GG405).

A recurrent saliency model learns a smoothing factor `alpha`. `__init__` makes it with
`torch.tensor([0.25], requires_grad=True).view(1, 1, 1, 1)`: the view is computed from the
leaf, so `self.alpha` is not a leaf, and the optimizer that a builder function makes from
`model.alpha` refuses it with "can't optimize a non-leaf Tensor" (checked with torch 2.13.0
below). The attribute is stored once and nothing changes it, so every method and every
reader of `model.alpha` sees that very tensor. Modelled on the neural-network-from-scratch
trap that https://github.com/pytorch/tutorials/pull/3717 explains (weights scaled after
`requires_grad=True` are not leaves), in a class.

The look-alike makes the factor a leaf (`nn.Parameter` of the view).
"""

import torch
from torch import nn


class Smoother(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.alpha = torch.tensor([0.25], requires_grad=True).view(1, 1)

    def forward(self, x):
        a = torch.sigmoid(self.alpha)
        return a * self.proj(x) + (1 - a) * x


class LeafSmoother(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.alpha = nn.Parameter(torch.tensor([0.25]).view(1, 1))

    def forward(self, x):
        return torch.sigmoid(self.alpha) * self.proj(x)


def build_optimizer(model):
    return torch.optim.Adam(
        [
            {"params": model.proj.parameters(), "lr": 1e-3},
            {"params": model.alpha, "lr": 0.1},  # expect: GG405
        ]
    )


def build_leaf_optimizer(model):
    return torch.optim.Adam([{"params": model.parameters(), "lr": 1e-3}])


if __name__ == "__main__":
    try:
        build_optimizer(Smoother())
    except ValueError as error:
        print(f"BUGGY: {error}")
    model = LeafSmoother()
    optimizer = build_leaf_optimizer(model)
    model(torch.randn(2, 4)).sum().backward()
    optimizer.step()
