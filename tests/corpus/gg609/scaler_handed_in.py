"""A GradScaler handed to the training function or trainer that uses it (GG609).

Training loops often receive the scaler the entry point built: `train_one_epoch(model,
optimizer, loader, scaler)`, or a trainer storing `self.scaler = scaler`. Whatever it is,
an object whose `.scale(loss)` is backpropagated is a loss scaler, and stepping the
optimizer directly after it works on gradients still multiplied by the scale. Reported in
Applio (https://github.com/IAHispano/Applio/pull/860: direct `optim.step()` calls beside the
scaler, "you would bypass the necessary gradient scaling and unscaling steps").

The look-alikes use the scaler only when one is given (`scaler=None` by default), step
through it, or come from a file that builds a scaler that may be disabled (one with a
literal `enabled=False` could be what the parameter receives: then the direct step is
harmless).
"""

import torch
from torch import nn


def train_one_epoch(model, optimizer, batches, scaler):
    for x, y in batches:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        optimizer.step()  # expect: GG609


def train_one_epoch_optional(model, optimizer, batches, scaler=None):
    for x, y in batches:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()


class Trainer:
    def __init__(self, model, optimizer, scaler):
        self.model = model
        self.optimizer = optimizer
        self.scaler = scaler

    def step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: GG609
        self.scaler.step(self.optimizer)
        self.scaler.update()

    def step_unscaled_first(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.scaler.step(self.optimizer)
        self.scaler.update()


def main():
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    batches = [(torch.randn(4, 3), torch.randn(4, 1))]
    before = model.weight.detach().clone()
    train_one_epoch(model, optimizer, batches, scaler)
    assert (model.weight - before).abs().max() > 10  # the scaled step
    train_one_epoch_optional(model, optimizer, batches, scaler)
    train_one_epoch_optional(model, optimizer, batches)
    trainer = Trainer(model, optimizer, scaler)
    trainer.step(*batches[0])
    trainer.step_unscaled_first(*batches[0])


if __name__ == "__main__":
    main()
