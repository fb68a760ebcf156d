"""Look-alikes of a trainer method that re-binds `self.model` after `__init__` built the
optimizer, where every model that is trained is the one the optimizer holds.

* `Restarting`: the method builds the optimizer again right after the new model.
* `Delegating`: the method asks another method to build the optimizer again.
* `Wrapping`: the method wraps the model it has (`nn.Sequential(self.model)`): the wrapper
  runs the very parameters the optimizer holds.
* `NeverRestarted`: the method exists, but no instance runs a training step after it.

Written for this corpus (the correct forms of the question in
https://github.com/pytorch/pytorch/issues/54765); every class trains under torch 2.13.0.
"""

import torch
from torch import nn


def build_regressor(width):
    return nn.Sequential(nn.Linear(5, width), nn.Tanh(), nn.Linear(width, 1))


class Restarting:
    def __init__(self):
        self.model = build_regressor(8)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05)

    def restart(self):
        self.model = build_regressor(8)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05)

    def step(self, x, y):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        loss.backward()
        self.optimizer.step()


class Delegating:
    def __init__(self):
        self.model = build_regressor(8)
        self.make_optimizer()

    def make_optimizer(self):
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05)

    def restart(self):
        self.model = build_regressor(8)
        self.make_optimizer()

    def step(self, x, y):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        loss.backward()
        self.optimizer.step()


class Wrapping:
    def __init__(self):
        self.model = build_regressor(8)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05)

    def wrap(self):
        self.model = nn.Sequential(self.model)

    def step(self, x, y):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        loss.backward()
        self.optimizer.step()


class NeverRestarted:
    def __init__(self):
        self.model = build_regressor(8)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05)

    def restart(self):
        self.model = build_regressor(8)

    def step(self, x, y):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        loss.backward()
        self.optimizer.step()


def trains(trainer):
    x, y = torch.randn(16, 5), torch.randn(16, 1)
    before = [p.detach().clone() for p in trainer.model.parameters()]
    trainer.step(x, y)
    assert all(not torch.equal(b, p) for b, p in zip(before, trainer.model.parameters()))


if __name__ == "__main__":
    torch.manual_seed(0)
    restarting = Restarting()
    restarting.restart()
    trains(restarting)
    delegating = Delegating()
    delegating.restart()
    trains(delegating)
    wrapping = Wrapping()
    wrapping.wrap()
    trains(wrapping)
    never = NeverRestarted()
    trains(never)
