"""Look-alikes of a trainer driven by an outside loop that GG203 must leave alone: in each,
it is not certain that an instance keeping its losses is stepped on every iteration.

* `pick` may hold either trainer (it is bound twice), and one of them keeps numbers;
* `made` comes from a factory function, which may return anything with a `step`;
* the step is in a branch of the loop (only some iterations call it), or after a
  `continue` the loop may take;
* the function rebinds the class's name, so `LossKeeper(...)` may not build that class.

(Each would keep graphs if the guess were right; the rule does not guess.)
"""

import torch
from torch import nn


class LossKeeper:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.kept = []

    def step(self, x):
        loss = self.model(x).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.kept.append(loss)


class NumberKeeper:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.numbers = []

    def step(self, x):
        loss = self.model(x).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.numbers.append(loss.item())


def build(kind, model):
    return LossKeeper(model) if kind == "keep" else NumberKeeper(model)


def rebound(data, numbers):
    pick = LossKeeper(nn.Linear(4, 1))
    if numbers:
        pick = NumberKeeper(nn.Linear(4, 1))
    for x in data:
        pick.step(x)


def from_a_factory(data, kind):
    made = build(kind, nn.Linear(4, 1))
    for x in data:
        made.step(x)


def on_some_iterations(data, every):
    keeper = LossKeeper(nn.Linear(4, 1))
    for i, x in enumerate(data):
        if i % every == 0:
            keeper.step(x)


def after_a_skip(data):
    keeper = LossKeeper(nn.Linear(4, 1))
    for x in data:
        if x.isnan().any():
            continue
        keeper.step(x)


def shadowed(data, LossKeeper=NumberKeeper):
    keeper = LossKeeper(nn.Linear(4, 1))
    for x in data:
        keeper.step(x)
