"""Look-alikes of `model_rebound_between_two_runs_of_a_helper.py`: each run steps the model
it calls.

The same two-phase curriculum: one script builds a new optimizer after binding the bigger
model; one keeps the first model under another name and hands that one to the second run
(the optimizer holds its parameters); one re-binds the optimizer name to a new optimizer on
the bigger model between the re-binding and the second run. Every model that is run trains
(checked with torch 2.13.0): silent.
"""

import torch
from torch import nn


class Regressor(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.hidden = nn.Linear(3, width)
        self.out = nn.Linear(width, 1)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x)))


def fit(net, opt, data):
    for x, y in data:
        opt.zero_grad()
        nn.functional.mse_loss(net(x), y).backward()
        opt.step()


def rebuilt_optimizer(data):
    regressor = Regressor(4)
    opt = torch.optim.SGD(regressor.parameters(), lr=0.1)
    fit(regressor, opt, data)
    regressor = Regressor(16)
    opt = torch.optim.SGD(regressor.parameters(), lr=0.1)
    start = regressor.hidden.weight.detach().clone()
    fit(regressor, opt, data)
    assert not torch.equal(start, regressor.hidden.weight)


def old_model_kept(data):
    regressor = Regressor(4)
    opt = torch.optim.SGD(regressor.parameters(), lr=0.1)
    fit(regressor, opt, data)
    first = regressor
    regressor = Regressor(16)
    start = first.hidden.weight.detach().clone()
    fit(first, opt, data)
    assert not torch.equal(start, first.hidden.weight)


def optimizer_rebound_between(data):
    regressor = Regressor(4)
    opt = torch.optim.SGD(regressor.parameters(), lr=0.1)
    fit(regressor, opt, data)
    regressor = Regressor(16)
    print("phase two")
    opt = torch.optim.Adam(regressor.parameters(), lr=0.01)
    start = regressor.hidden.weight.detach().clone()
    fit(regressor, opt, data)
    assert not torch.equal(start, regressor.hidden.weight)


if __name__ == "__main__":
    batches = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(3)]
    rebuilt_optimizer(batches)
    old_model_kept(batches)
    optimizer_rebound_between(batches)
