"""Micro-batches drawn into a list and backpropagated whole, the gradients averaged after.

The helper backpropagates each micro-batch's mean loss undivided, but the step function
divides every `.grad` by the number of micro-batches before stepping: the step applies the
mean of their gradients, as the large batch would (checked with torch 2.13.0 below). The
other spelling of the fix nanoGPT's issue discusses (dividing the loss) is not needed then.
https://github.com/karpathy/nanoGPT/issues/206
"""

import torch
import torch.nn.functional as F
from torch import nn

accumulate = 3


def draw(gen):
    x = torch.randn(4, 5, generator=gen)
    return x, x.sum(1, keepdim=True)


def backprop_each(model, batches):
    for x, y in batches:
        F.mse_loss(model(x), y).backward()


def train(model, optimizer, gen):
    for _ in range(2):
        batches = [draw(gen) for _ in range(accumulate)]
        backprop_each(model, batches)
        for p in model.parameters():
            p.grad /= accumulate
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Linear(5, 1)
    train(net, torch.optim.SGD(net.parameters(), lr=0.05), torch.Generator().manual_seed(0))
    net.zero_grad()
    g = torch.Generator().manual_seed(1)
    pairs = [draw(g) for _ in range(accumulate)]
    backprop_each(net, pairs)
    summed = net.weight.grad.clone()
    net.zero_grad()
    F.mse_loss(net(torch.cat([p[0] for p in pairs])), torch.cat([p[1] for p in pairs])).backward()
    assert torch.allclose(summed, accumulate * net.weight.grad, atol=1e-6)
