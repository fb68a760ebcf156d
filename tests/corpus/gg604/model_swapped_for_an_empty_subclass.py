"""A model swapped for an instance of a subclass that adds nothing (GG604).

A curriculum script trains a small network, then starts a second stage on a wider one:
`Wider(Net)` has no body but a docstring, so `Wider(32)` runs `Net.__init__` and owns
brand-new layers. The name is re-bound and the loop runs again with the optimizer
built on the first network: it steps tensors the wider model no longer uses,
and the wider model never trains. The look-alikes build a fresh optimizer for the second
stage or swap before the optimizer is built. Checked with torch 2.13.0 below.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.hidden = nn.Linear(3, width)
        self.head = nn.Linear(width, 1)

    def forward(self, x):
        return self.head(torch.tanh(self.hidden(x)))


class Wider(Net):
    """The same layers, built wider."""


def stale_second_stage():
    net = Net()
    optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
    for _ in range(3):
        loss = F.mse_loss(net(torch.randn(6, 3)), torch.ones(6, 1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    net = Wider(32)  # expect: GG604
    before = net.hidden.weight.detach().clone()
    for _ in range(3):
        loss = F.mse_loss(net(torch.randn(6, 3)), torch.ones(6, 1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return torch.equal(before, net.hidden.weight)


def fresh_optimizer_second_stage():
    net = Net()
    optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
    for _ in range(3):
        loss = F.mse_loss(net(torch.randn(6, 3)), torch.ones(6, 1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    net = Wider(32)
    optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
    for _ in range(3):
        loss = F.mse_loss(net(torch.randn(6, 3)), torch.ones(6, 1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def swapped_before_the_optimizer():
    net = Net()
    net = Wider(16)
    optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
    for _ in range(3):
        loss = F.mse_loss(net(torch.randn(6, 3)), torch.ones(6, 1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    assert stale_second_stage(), "the stale optimizer moved the wider model"
    fresh_optimizer_second_stage()
    swapped_before_the_optimizer()
    print("the wider model never trains with the first stage's optimizer")
