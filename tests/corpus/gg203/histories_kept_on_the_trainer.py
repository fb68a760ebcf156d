"""GG203: loss histories a trainer keeps on `self` and grows by one live tensor per batch.

A trainer builds `self.<name> = []` once, in `__init__`, and a small method appends the
loss a step returned to it; the fitting loop calls that method on every batch. The list is
never emptied, so every appended loss keeps its step's whole graph (activations included)
for as long as the trainer lives: memory grows batch after batch.

Two trainers are reported: one logs the dict item a step returned, one appends the loss it
computes itself. Look-alikes that stay silent (each its own class): a history of `.item()`
numbers, of detached tensors, a history emptied on every epoch, a method called once (not
in a loop), a list that is a local of the method, and a history that a later backward runs
through (the sum of the kept losses is backpropagated on purpose).
"""

import torch
from torch import nn


def step_losses(model, x):
    out = model(x)
    return {"loss": out.pow(2).mean(), "size": out.abs().mean()}


class DictTrainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.history = []

    def log(self, losses):
        self.history.append(losses["loss"])  # expect: GG203

    def step(self, x):
        losses = step_losses(self.model, x)
        self.opt.zero_grad()
        losses["loss"].backward()
        self.opt.step()
        return losses

    def fit(self, batches):
        for x in batches:
            self.log(self.step(x))
        print(len(self.history))


class SelfLoggingTrainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.losses = []

    def step(self, x):
        loss = self.model(x).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.losses.append(loss)  # expect: GG203

    def fit(self, batches):
        for x in batches:
            self.step(x)
        print(self.losses[-1])


class NumberTrainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.numbers = []

    def log(self, losses):
        self.numbers.append(losses["loss"].item())

    def step(self, x):
        losses = step_losses(self.model, x)
        self.opt.zero_grad()
        losses["loss"].backward()
        self.opt.step()
        return losses

    def fit(self, batches):
        for x in batches:
            self.log(self.step(x))


class DetachingTrainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.detached = []

    def log(self, losses):
        self.detached.append(losses["loss"].detach())

    def step(self, x):
        losses = step_losses(self.model, x)
        self.opt.zero_grad()
        losses["loss"].backward()
        self.opt.step()
        return losses

    def fit(self, batches):
        for x in batches:
            self.log(self.step(x))


class EpochTrainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.epoch_losses = []

    def log(self, losses):
        self.epoch_losses.append(losses["loss"])

    def step(self, x):
        losses = step_losses(self.model, x)
        self.opt.zero_grad()
        losses["loss"].backward()
        self.opt.step()
        return losses

    def fit(self, batches, epochs):
        for _ in range(epochs):
            self.epoch_losses = []
            for x in batches:
                self.log(self.step(x))


class OnceTrainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.once_losses = []

    def log(self, losses):
        self.once_losses.append(losses["loss"])

    def step(self, x):
        losses = step_losses(self.model, x)
        self.opt.zero_grad()
        losses["loss"].backward()
        self.opt.step()
        return losses

    def fit_one(self, x):
        self.log(self.step(x))


class LocalListTrainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def log(self, losses):
        kept = []
        kept.append(losses["loss"])
        print(len(kept))

    def step(self, x):
        losses = step_losses(self.model, x)
        self.opt.zero_grad()
        losses["loss"].backward()
        self.opt.step()
        return losses

    def fit(self, batches):
        for x in batches:
            self.log(self.step(x))


class SummedTrainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.kept = []

    def log(self, losses):
        self.kept.append(losses["loss"])

    def step(self, x):
        losses = step_losses(self.model, x)
        self.opt.zero_grad()
        losses["loss"].backward(retain_graph=True)
        return losses

    def fit(self, batches):
        for x in batches:
            self.log(self.step(x))
        self.opt.zero_grad()
        torch.stack(self.kept).sum().backward()
        self.opt.step()


def main():
    batches = [torch.randn(4, 3) for _ in range(3)]
    for trainer in (
        DictTrainer(nn.Linear(3, 1)),
        SelfLoggingTrainer(nn.Linear(3, 1)),
        NumberTrainer(nn.Linear(3, 1)),
        DetachingTrainer(nn.Linear(3, 1)),
        LocalListTrainer(nn.Linear(3, 1)),
        SummedTrainer(nn.Linear(3, 1)),
    ):
        trainer.fit(batches)
    EpochTrainer(nn.Linear(3, 1)).fit(batches, 2)
    OnceTrainer(nn.Linear(3, 1)).fit_one(batches[0])
