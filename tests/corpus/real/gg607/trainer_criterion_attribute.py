"""Trainer classes whose batch loop validates every N iterations and never switches the model
back to training mode (GG607). The loop also calls objects the trainer holds on itself
(`self.criterion(...)`): they are not methods handed `self`, so they cannot switch the model
back unless they were built around it.

Sources (rewritten in our own words, structure kept):
* https://github.com/wkentaro/pytorch-fcn/issues/57 - `Trainer.train_epoch()` calls
  `self.validate()` every `interval_validate` iterations; `validate()` ends in eval mode, so the
  rest of the epoch trains with batch norm frozen; the fix calls `self.model.train()` after it.
* https://github.com/webis-de/small-text/issues/40 - with more than one validation per epoch,
  the batches after the first validation train in eval mode.
"""

import torch
from torch import nn


class FCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU())
        self.score = nn.Conv2d(4, 2, 1)

    def forward(self, x):
        return self.score(self.body(x))


class Trainer:
    """pytorch-fcn#57: the loss is an object the trainer holds."""

    def __init__(self, model, optimizer, train_loader, val_loader, interval_validate=2):
        self.model = model
        self.optim = optimizer
        self.criterion = nn.CrossEntropyLoss()
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.interval_validate = interval_validate
        self.iteration = 0

    def validate(self):
        self.model.eval()
        with torch.no_grad():
            return [self.criterion(self.model(x), t).item() for x, t in self.val_loader]

    def train_epoch(self):
        self.model.train()
        for data, target in self.train_loader:
            if self.iteration % self.interval_validate == 0:
                self.validate()  # expect: GG607
            self.optim.zero_grad()
            loss = self.criterion(self.model(data), target)
            loss.backward()
            self.optim.step()
            self.iteration += 1


class FixedTrainer(Trainer):
    """The fix from the issue: training mode again right after validating."""

    def train_epoch(self):
        self.model.train()
        for data, target in self.train_loader:
            if self.iteration % self.interval_validate == 0:
                self.validate()
                self.model.train()
            self.optim.zero_grad()
            loss = self.criterion(self.model(data), target)
            loss.backward()
            self.optim.step()
            self.iteration += 1


class Validator:
    """Holds the model; restores training mode itself after each check."""

    def __init__(self, model, loader):
        self.model = model
        self.loader = loader

    def __call__(self):
        self.model.eval()
        with torch.no_grad():
            scores = [self.model(x).mean().item() for x, _ in self.loader]
        self.model.train()
        return scores


class TrainerWithValidator:
    """The loop calls an object built around the model: it may switch the model back (it
    does), so GradGuard stays silent."""

    def __init__(self, model, optimizer, train_loader, val_loader):
        self.model = model
        self.optim = optimizer
        self.criterion = nn.CrossEntropyLoss()
        self.train_loader = train_loader
        self.check = Validator(model, val_loader)

    def quick_eval(self):
        self.model.eval()

    def train_epoch(self):
        for step, (data, target) in enumerate(self.train_loader):
            if step % 2 == 0:
                self.quick_eval()
                self.check()
            self.optim.zero_grad()
            loss = self.criterion(self.model(data), target)
            loss.backward()
            self.optim.step()


torch.manual_seed(0)
batches = [(torch.randn(2, 3, 4, 4), torch.randint(0, 2, (2, 4, 4))) for _ in range(3)]
fcn = FCN()
trainer = Trainer(fcn, torch.optim.SGD(fcn.parameters(), lr=0.1), batches, batches)
trainer.train_epoch()
assert not fcn.training, "the last batches trained in eval mode"
fixed = FixedTrainer(fcn, torch.optim.SGD(fcn.parameters(), lr=0.1), batches, batches)
fixed.train_epoch()
assert fcn.training
held = TrainerWithValidator(fcn, torch.optim.SGD(fcn.parameters(), lr=0.1), batches, batches)
held.train_epoch()
assert fcn.training
