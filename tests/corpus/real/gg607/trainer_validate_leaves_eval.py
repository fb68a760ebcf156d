"""A 3D U-Net trainer whose validation switches the model to evaluation mode: once
`self.model.eval()` is added before the validation forward passes (as the reporter
proposes), the training batches that follow run with dropout off and batch norm frozen
unless `self.model.train()` switches back. The report insists on both halves; the upstream
fix puts `self.model.train()` at the start of the training epoch.

Sources (rewritten in our own words, structure kept):
* https://github.com/wolny/pytorch-3dunet/issues/53 - `trainer.py`: a trainer class whose
  `train()` loops over batches and calls `self.validate()` every N iterations.
* https://github.com/udacity/deep-learning-v2-pytorch/pull/397 - the reviewer: "The
  `model.train()` needs to be added back if we're going to use `model.eval()`".
"""

import torch
from torch import nn


class UNetTrainer:
    def __init__(self, model, optimizer, loss_criterion, validate_after_iters=2):
        self.model = model
        self.optimizer = optimizer
        self.loss_criterion = loss_criterion
        self.validate_after_iters = validate_after_iters
        self.num_iterations = 0

    def train(self, train_loader, val_loader):
        for input, target in train_loader:
            output = self.model(input)
            loss = self.loss_criterion(output, target)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if self.num_iterations % self.validate_after_iters == 0:
                self.validate(val_loader)  # expect: GG607
            self.num_iterations += 1

    def validate(self, val_loader):
        self.model.eval()
        with torch.no_grad():
            for input, target in val_loader:
                print(self.loss_criterion(self.model(input), target).item())


class FixedUNetTrainer(UNetTrainer):
    def validate(self, val_loader):
        self.model.eval()
        with torch.no_grad():
            for input, target in val_loader:
                print(self.loss_criterion(self.model(input), target).item())
        self.model.train()


def validate(model, val_loader, criterion):
    model.eval()
    with torch.no_grad():
        return sum(criterion(model(x), y).item() for x, y in val_loader)


def fit(train_loader, val_loader, epochs):
    """The same mistake in a script: train mode is set once, before the epoch loop."""
    model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.MSELoss()
    model.train()
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        validate(model, val_loader, criterion)  # expect: GG607


def fit_fixed(train_loader, val_loader, epochs):
    model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.MSELoss()
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        validate(model, val_loader, criterion)


unet = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Dropout(0.3), nn.Linear(8, 1))
data = [(torch.randn(4, 4), torch.randn(4, 1)) for _ in range(3)]
trainer = UNetTrainer(unet, torch.optim.SGD(unet.parameters(), lr=0.1), nn.MSELoss())
trainer.train(data, data)
assert not unet.training
unet.train()
FixedUNetTrainer(unet, torch.optim.SGD(unet.parameters(), lr=0.1), nn.MSELoss()).train(data, data)
assert unet.training
fit(data, data, 2)
fit_fixed(data, data, 2)
