"""Synthetic images rescaled in `__init__` after `requires_grad=True`, optimized by a
method (GG405).

A dataset-distillation helper learns a few synthetic images. Its `__init__` draws them with
`requires_grad=True` and then, as a second statement, shrinks them by `scale`: the stored
tensor is the product, computed from the drawn leaf, so `optimizer()` hands SGD a non-leaf
and the constructor raises "can't optimize a non-leaf Tensor" (checked with torch 2.13.0
below). Every store of `self.images` is in `__init__`, which calls nothing that could read
it half-made, so every other method finds the product. Modelled on
https://github.com/pytorch/pytorch/issues/140469 (synthetic images drawn with
`requires_grad=True` and multiplied by 0.01 before reaching the optimizer).

The look-alike scales first and asks for gradients on the scaled tensor, a leaf.
"""

import torch
from torch import nn


class Distiller:
    def __init__(self, count, size, scale=0.01):
        self.images = torch.randn(count, 3, size, size, requires_grad=True)
        self.labels = torch.arange(count) % 2
        self.images = self.images * scale

    def optimizer(self):
        return torch.optim.SGD([self.images], lr=0.1)  # expect: GG405


class LeafDistiller:
    def __init__(self, count, size, scale=0.01):
        self.pixels = (torch.randn(count, 3, size, size) * scale).requires_grad_()
        self.labels = torch.arange(count) % 2

    def optimizer(self):
        return torch.optim.SGD([self.pixels], lr=0.1)

    def step(self, model):
        opt = self.optimizer()
        loss = nn.functional.cross_entropy(model(self.pixels), self.labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Flatten(), nn.Linear(48, 2))
    print("look-alike loss", LeafDistiller(4, 4).step(net))
    try:
        Distiller(4, 4).optimizer()
    except ValueError as error:
        print(f"BUGGY: {error}")
