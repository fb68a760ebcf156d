"""Reads of a submodule's gradients that are fine, or that the analysis cannot be sure of:
the step's backward runs before the helper, the helper checks for None, the reset keeps
zeros (`set_to_none=False`), the part handed over is replaced by code the file does not
show, or the object whose part is read is not known to be a module."""

import torch
from torch import nn

torch.manual_seed(0)


class Body(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(6, 12), nn.Tanh())
        self.head = nn.Linear(12, 1)

    def forward(self, x):
        return self.head(self.trunk(x))


def squared_norm(weights):
    weights = list(weights)
    return sum(w.grad.norm() ** 2 for w in weights)


def guarded_norm(weights):
    weights = list(weights)
    return sum(w.grad.norm() ** 2 for w in weights if w.grad is not None)


def clip_after_backward(net, optimizer, x, y):
    for step in range(2):
        optimizer.zero_grad()
        ((net(x) - y) ** 2).mean().backward()
        print(squared_norm(net.trunk.parameters()))
        optimizer.step()


def guarded_before_backward(net, optimizer, x, y):
    for step in range(2):
        optimizer.zero_grad()
        print(guarded_norm(net.head.parameters()))
        ((net(x) - y) ** 2).mean().backward()
        optimizer.step()


def zeros_kept(net, x, y):
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    ((net(x) - y) ** 2).mean().backward()
    for step in range(2):
        optimizer.zero_grad(set_to_none=False)
        print(squared_norm(net.trunk.parameters()))
        ((net(x) - y) ** 2).mean().backward()
        optimizer.step()


def trained_trunk():
    trunk = nn.Sequential(nn.Linear(6, 12), nn.Tanh())
    trunk(torch.randn(2, 6)).sum().backward()
    return trunk


def replaced_part(net, x, y, load_trunk):
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    optimizer.zero_grad()
    net.trunk = load_trunk()
    print(squared_norm(net.trunk.parameters()))
    ((net(x) - y) ** 2).mean().backward()


def unknown_owner(trainer, x, y):
    trainer.optimizer.zero_grad()
    print(squared_norm(trainer.model.trunk.parameters()))
    trainer.model(x).sum().backward()


def main():
    x, y = torch.randn(8, 6), torch.randn(8, 1)
    net = Body()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    clip_after_backward(net, optimizer, x, y)
    guarded_before_backward(net, optimizer, x, y)
    zeros_kept(Body(), x, y)
    replaced_part(Body(), x, y, trained_trunk)


if __name__ == "__main__":
    main()
