"""A model re-bound to a bigger one between two runs of the same training helper.

A curriculum script fits a small regressor with `fit(regressor, opt, data)`, then starts
phase two by binding `regressor` to a bigger model and calls `fit(regressor, opt, data)` again
with the optimizer built for the first model. The first call hands `fit` a model and the
optimizer built on it; the second hands it the new model and that same optimizer, which
holds only the first model's parameters: the new model gets gradients but never changes
(checked with torch 2.13.0: its weights equal their initial values after phase two).
Whatever other calls hand the helper, the call after the re-binding steps the old
parameters while running the new model.

Look-alikes (the optimizer rebuilt after the re-binding, the helper given the old model
kept under another name, the optimizer re-bound between) are in
`negatives_model_rebound_between_two_runs.py`. Modelled on the question in
https://github.com/pytorch/pytorch/issues/54765 (must the optimizer be built again after
the network is swapped for another one?), written anew for this corpus.
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


def main():
    data = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(3)]
    regressor = Regressor(4)
    opt = torch.optim.SGD(regressor.parameters(), lr=0.1)
    fit(regressor, opt, data)
    regressor = Regressor(16)  # expect: GG604
    start = regressor.hidden.weight.detach().clone()
    fit(regressor, opt, data)
    assert torch.equal(start, regressor.hidden.weight), "the bigger model trained"


if __name__ == "__main__":
    main()
