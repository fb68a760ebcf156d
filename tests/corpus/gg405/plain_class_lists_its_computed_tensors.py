"""Weights kept by a plain (non-`nn.Module`) class and handed out by one of its methods
(GG405).

A polynomial regressor written without `nn.Module` keeps its coefficients on `self` and
offers them through its own `parameters()` method, so that a training script can write
`torch.optim.Adam(reg.parameters())` as it would for a module. `__init__` scales the random
coefficients after passing `requires_grad=True`, so `self.coef` is the result of a
multiplication, not a leaf, and the optimizer refuses the list with "can't optimize a
non-leaf Tensor" (checked with torch 2.13.0 below). The report is on the optimizer's
argument, pointing at the assignment that makes the tensor. The trap is the one https://github.com/pytorch/tutorials/pull/3717
explains for the "neural network from scratch" tutorial (weights scaled after
`requires_grad=True`), here behind a method.

Look-alikes: a class that makes the leaf after scaling, and one that keeps a computed
tensor (the positive scale derived from a learned log-scale) but lists only its leaves.
"""

import torch


class PolyRegressor:
    def __init__(self, degree):
        self.degree = degree
        self.coef = torch.randn(degree + 1, requires_grad=True) * 0.1
        self.offset = torch.zeros(1, requires_grad=True)

    def parameters(self):
        return [self.coef, self.offset]

    def predict(self, x):
        powers = torch.stack([x**k for k in range(self.degree + 1)], dim=-1)
        return powers @ self.coef + self.offset


class LeafPolyRegressor:
    def __init__(self, degree):
        self.degree = degree
        self.coef = (torch.randn(degree + 1) * 0.1).requires_grad_()
        self.log_scale = torch.zeros(1, requires_grad=True)
        self.scale = self.log_scale.exp()

    def parameters(self):
        return [self.coef, self.log_scale]

    def predict(self, x):
        powers = torch.stack([x**k for k in range(self.degree + 1)], dim=-1)
        return (powers @ self.coef) * self.log_scale.exp()


def fit(reg, optimizer, steps=3):
    x = torch.linspace(-1, 1, 16)
    y = 0.5 * x**2 - x
    for _ in range(steps):
        optimizer.zero_grad()
        loss = ((reg.predict(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
    return loss.item()


def training_setup(degree):
    reg = PolyRegressor(degree)
    return reg, torch.optim.Adam(reg.parameters(), lr=0.05)  # expect: GG405


def leaf_training_setup(degree):
    reg = LeafPolyRegressor(degree)
    return reg, torch.optim.Adam(reg.parameters(), lr=0.05)


if __name__ == "__main__":
    try:
        fit(*training_setup(2))
    except ValueError as error:
        print(f"BUGGY: {error}")
    print(fit(*leaf_training_setup(2)))
