"""A trainer class that builds its model, optimizer and criterion in `__init__` and calls
`self.validate()` after every epoch; `validate()` switches `self.model` to evaluation mode
and never back, so every epoch after the first trains with dropout off (measured with torch
2.13.0: `self.model.training` is False during the second epoch's steps). Calling the model
and its torch.nn criterion in the loop cannot switch the mode back; only `.train()` does.

Sources (rewritten in our own words, structure kept):
* https://github.com/wolny/pytorch-3dunet/issues/53 - a trainer whose `train()` loop calls
  `self.validate()`, which puts the model in eval mode.
* https://github.com/udacity/deep-learning-v2-pytorch/pull/397 - "`model.train()` needs to be
  added back if we're going to use `model.eval()`".
"""

import torch
from torch import nn


class Trainer:
    def __init__(self):
        self.model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 1))
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.criterion = nn.MSELoss()
        self.modes = []

    def fit(self, train_loader, val_loader, epochs):
        for epoch in range(epochs):
            for inputs, targets in train_loader:
                self.modes.append(self.model.training)
                loss = self.criterion(self.model(inputs), targets)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self.validate(val_loader)  # expect: GG607

    def validate(self, val_loader):
        self.model.eval()
        with torch.no_grad():
            return sum(self.criterion(self.model(x), y).item() for x, y in val_loader)


class FixedTrainer:
    def __init__(self):
        self.model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 1))
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.criterion = nn.MSELoss()
        self.modes = []

    def fit(self, train_loader, val_loader, epochs):
        for epoch in range(epochs):
            self.model.train()
            for inputs, targets in train_loader:
                self.modes.append(self.model.training)
                loss = self.criterion(self.model(inputs), targets)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self.validate(val_loader)

    def validate(self, val_loader):
        self.model.eval()
        with torch.no_grad():
            return sum(self.criterion(self.model(x), y).item() for x, y in val_loader)


batches = [(torch.randn(4, 4), torch.randn(4, 1))]
trainer = Trainer()
trainer.fit(batches, batches, 2)
assert trainer.modes == [True, False]
fixed = FixedTrainer()
fixed.fit(batches, batches, 2)
assert fixed.modes == [True, True]
