"""Micro-batches drawn into a list and backpropagated whole, the learning rate divided.

Each optimizer step backpropagates `n_micro` micro-batch losses undivided, but the
optimizer was built with the base learning rate divided by `n_micro`: with SGD the update
is the same as averaging the losses (checked with torch 2.13.0 below), so the file scales
by the number of micro-batches and nothing is reported. The issue on nanoGPT's
accumulation asks which of the two the loop should divide.
https://github.com/karpathy/nanoGPT/issues/206
"""

import copy

import torch
import torch.nn.functional as F
from torch import nn

n_micro = 4
base_lr = 0.2


def draw(gen):
    x = torch.randn(3, 6, generator=gen)
    return x, x.mean(1, keepdim=True)


def train(model, gen):
    optimizer = torch.optim.SGD(model.parameters(), lr=base_lr / n_micro)
    for _ in range(1):
        micro = [draw(gen) for _ in range(n_micro)]
        for i in range(n_micro):
            x, y = micro[i]
            loss = F.mse_loss(model(x), y)
            loss.backward()
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Linear(6, 1)
    big = copy.deepcopy(net)
    train(net, torch.Generator().manual_seed(2))
    g = torch.Generator().manual_seed(2)
    pairs = [draw(g) for _ in range(n_micro)]
    F.mse_loss(big(torch.cat([p[0] for p in pairs])), torch.cat([p[1] for p in pairs])).backward()
    with torch.no_grad():
        big.weight -= base_lr * big.weight.grad
    assert torch.allclose(net.weight, big.weight, atol=1e-5)
