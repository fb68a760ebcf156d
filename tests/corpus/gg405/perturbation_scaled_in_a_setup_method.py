"""A perturbation made in one method, scaled after `requires_grad=True`, optimized by
another (GG405).

An adversarial-robustness helper starts each attack by making a random perturbation
`self.delta`: it draws a tensor with `requires_grad=True` and then scales it by the
attack's radius. The product is computed from the drawn leaf, so it is not a leaf, and the
optimizer that `optimizer()` builds over `[self.delta]` refuses it with "can't optimize a
non-leaf Tensor" (checked with torch 2.13.0 below). `self.delta` is stored only by
`start()`: the optimizer either finds no attribute at all or that product. Modelled on
https://forum.pyro.ai/t/try-to-understand-param-with-constraints/4761 (a parameter passed
through a transform before reaching the optimizer is no longer a leaf).

The look-alike scales first and asks for gradients afterwards, so its perturbation is a
leaf.
"""

import torch
from torch import nn


class Attack:
    def __init__(self, model, radius=0.1):
        self.model = model
        self.radius = radius

    def start(self, images):
        self.delta = torch.rand_like(images, requires_grad=True) * self.radius

    def optimizer(self):
        return torch.optim.SGD([self.delta], lr=0.01)  # expect: GG405


class LeafAttack:
    def __init__(self, model, radius=0.1):
        self.model = model
        self.radius = radius

    def start(self, images):
        self.noise = (torch.rand_like(images) * self.radius).requires_grad_()

    def optimizer(self):
        return torch.optim.SGD([self.noise], lr=0.01)

    def step(self, images, labels):
        opt = self.optimizer()
        loss = -nn.functional.cross_entropy(self.model(images + self.noise), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Flatten(), nn.Linear(12, 3))
    images, labels = torch.rand(2, 3, 2, 2), torch.tensor([0, 2])
    leaf = LeafAttack(net)
    leaf.start(images)
    print("look-alike loss", leaf.step(images, labels))
    attack = Attack(net)
    attack.start(images)
    try:
        attack.optimizer()
    except ValueError as error:
        print(f"BUGGY: {error}")
