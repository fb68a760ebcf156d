"""One loss per sequence handed to backward(), sized by dataclass settings (GG501).

Modelled on https://github.com/mindee/doctr/pull/379: two text recognition models returned
their loss as one value per sequence (`ce_loss.unsqueeze(1)`), and training failed with "grad
can be implicitly created only for scalar outputs" until the loss was averaged. The settings
here live in a dataclass, `@dataclass class Settings: batch_size: int = 4 ...`, built as
`Settings(lr=0.1)`: the fields not given keep their literal defaults, and nothing in the file
changes the instance (it only reaches functions of the file), so the batch size, and with it
the loss's shape, is known.

Look-alikes: the same loss averaged; and settings of another dataclass whose instance the file
changes (`trial.rows = 1`, run below: a one-element loss backpropagates fine), so its size is
unknown.
"""

from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class Settings:
    batch_size: int = 4
    length: int = 7
    classes: int = 5
    lr: float = 1e-3


@dataclass
class Trial:
    rows: int = 4
    length: int = 7


def train_per_sequence(model, settings):
    optimizer = torch.optim.SGD(model.parameters(), lr=settings.lr)
    x = torch.randn(settings.batch_size, settings.length, 8)
    target = torch.rand(settings.batch_size, settings.length, settings.classes)
    per_position = (model(x) - target).pow(2).sum(dim=2)
    loss = per_position.sum(dim=1) / settings.length
    optimizer.zero_grad()
    loss.backward()  # expect: GG501
    optimizer.step()


def train_averaged(model, settings):
    x = torch.randn(settings.batch_size, settings.length, 8)
    target = torch.rand(settings.batch_size, settings.length, settings.classes)
    per_position = (model(x) - target).pow(2).sum(dim=2)
    loss = (per_position.sum(dim=1) / settings.length).mean()
    loss.backward()


def train_trial():
    trial = Trial()
    trial.rows = 1
    model = nn.Linear(8, 1)
    x = torch.randn(trial.rows, trial.length, 8)
    per_position = model(x).pow(2).sum(dim=2)
    loss = per_position.sum(dim=1) / trial.length
    loss.backward()


def main():
    settings = Settings(lr=0.1)
    model = nn.Linear(8, settings.classes)
    train_averaged(model, settings)
    train_trial()
    try:
        train_per_sequence(model, settings)
    except RuntimeError as error:
        assert "scalar outputs" in str(error)
    else:
        raise AssertionError("backward of per-sequence losses ran")
    print("ok")


if __name__ == "__main__":
    main()
