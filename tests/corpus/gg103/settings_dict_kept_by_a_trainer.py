"""A trainer keeps its settings dict, and a zero weight leaves only a detached term (GG103).

In https://github.com/qianqianwang68/caps/issues/3 a user asked why a weighting factor of
a loss term was cut with `.detach()`; the authors meant it (the network would otherwise
shrink the weight instead of the error). The same cut becomes a crash when the weights live
in a settings dict handed to a trainer and one of them is zero: the trainer keeps the dict
on `self`, the step reads `self.hp["w_main"]` in another method, and when the main term is
skipped the loss is built from the detached auxiliary term alone, so backward() raises
"element 0 of tensors does not require grad and does not have a grad_fn".

The dict is known in the step only because nothing in the file may change it. The
look-alikes are the same trainer when the weight may change after `__init__` (a method
switches the main term on before training), when the caller changes its own dict after
building the trainer, and when the main weight is not zero.
"""

import torch
import torch.nn.functional as F
from torch import nn

WARMUP = {"w_main": 0.0, "w_aux": 1.0, "lr": 0.1}
SCHEDULED = {"w_main": 0.0, "w_aux": 1.0, "lr": 0.1}
FULL = {"w_main": 1.0, "w_aux": 0.5, "lr": 0.1}


class WarmupTrainer:
    def __init__(self, model, hp):
        self.model, self.hp = model, hp
        self.centers = torch.randn(4, 4)
        self.opt = torch.optim.SGD(model.parameters(), lr=hp["lr"])

    def step(self, x, y):
        feats = self.model(x)
        kept = feats.detach()  # expect: GG103
        loss = self.hp["w_aux"] * F.cross_entropy(kept @ self.centers.t(), y)
        if self.hp["w_main"] > 0:
            loss = loss + self.hp["w_main"] * F.cross_entropy(feats, y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


class ScheduledTrainer:
    """Look-alike: `begin()` turns the main term on before any step, so the weight read in
    `step` is not the one the dict was built with."""

    def __init__(self, model, settings):
        self.model, self.settings = model, settings
        self.centers = torch.randn(4, 4)
        self.opt = torch.optim.SGD(model.parameters(), lr=settings["lr"])

    def begin(self):
        self.settings["w_main"] = 1.0

    def step(self, x, y):
        feats = self.model(x)
        kept = feats.detach()
        loss = self.settings["w_aux"] * F.cross_entropy(kept @ self.centers.t(), y)
        if self.settings["w_main"] > 0:
            loss = loss + self.settings["w_main"] * F.cross_entropy(feats, y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


class CallerTunedTrainer:
    """Look-alike: the caller changes its own dict after building the trainer."""

    def __init__(self, model, opts):
        self.model, self.opts = model, opts
        self.centers = torch.randn(4, 4)
        self.opt = torch.optim.SGD(model.parameters(), lr=opts["lr"])

    def step(self, x, y):
        feats = self.model(x)
        kept = feats.detach()
        loss = self.opts["w_aux"] * F.cross_entropy(kept @ self.centers.t(), y)
        if self.opts["w_main"] > 0:
            loss = loss + self.opts["w_main"] * F.cross_entropy(feats, y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


class FullTrainer:
    """Look-alike: the main weight is not zero, so the loss keeps the model's history."""

    def __init__(self, model, weights):
        self.model, self.weights = model, weights
        self.centers = torch.randn(4, 4)
        self.opt = torch.optim.SGD(model.parameters(), lr=weights["lr"])

    def step(self, x, y):
        feats = self.model(x)
        kept = feats.detach()
        loss = self.weights["w_aux"] * F.cross_entropy(kept @ self.centers.t(), y)
        if self.weights["w_main"] > 0:
            loss = loss + self.weights["w_main"] * F.cross_entropy(feats, y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


def run_warmup():
    trainer = WarmupTrainer(nn.Linear(8, 4), WARMUP)
    trainer.step(torch.randn(6, 8), torch.randint(0, 4, (6,)))


def run_scheduled():
    trainer = ScheduledTrainer(nn.Linear(8, 4), SCHEDULED)
    trainer.begin()
    trainer.step(torch.randn(6, 8), torch.randint(0, 4, (6,)))


def run_caller_tuned():
    opts = {"w_main": 0.0, "w_aux": 1.0, "lr": 0.1}
    trainer = CallerTunedTrainer(nn.Linear(8, 4), opts)
    opts["w_main"] = 1.0
    trainer.step(torch.randn(6, 8), torch.randint(0, 4, (6,)))


def run_full():
    trainer = FullTrainer(nn.Linear(8, 4), FULL)
    trainer.step(torch.randn(6, 8), torch.randint(0, 4, (6,)))


if __name__ == "__main__":
    try:
        run_warmup()
    except RuntimeError as error:
        assert "does not require grad" in str(error), error
    else:
        raise AssertionError("the warm-up step should fail")
    run_scheduled()
    run_caller_tuned()
    run_full()
    print("ok")
