"""Running totals kept on a trainer object across calls of its step method.

The shape of many small trainer classes in public repositories and Q&A threads about
memory that grows every batch ("CUDA out of memory after some iterations" answers point at
`self.total_loss += loss`): the loop lives in the caller, the backward in the method.
"""

import torch
from torch import nn


class Trainer:
    def __init__(self):
        self.model = nn.Linear(4, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.running_loss = 0.0
        self.seen = 0

    def step(self, x, y):
        loss = (self.model(x) - y).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.running_loss += loss  # expect: GG203
        self.seen += 1


trainer = Trainer()
for _ in range(100):
    trainer.step(torch.randn(8, 4), torch.randn(8, 1))


class ItemTrainer:
    """The same trainer adding `loss.item()`: a float, no graph kept."""

    def __init__(self):
        self.model = nn.Linear(4, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.running_loss = 0.0

    def step(self, x, y):
        loss = (self.model(x) - y).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.running_loss += loss.item()


item_trainer = ItemTrainer()
for _ in range(100):
    item_trainer.step(torch.randn(8, 4), torch.randn(8, 1))


class ResetEachCall:
    """The total starts again on every call: nothing crosses calls."""

    def __init__(self):
        self.model = nn.Linear(4, 1)
        self.batch_loss = None

    def step(self, x, y):
        self.batch_loss = 0.0
        loss = (self.model(x) - y).pow(2).mean()
        loss.backward()
        self.batch_loss += loss


resetting = ResetEachCall()
for _ in range(100):
    resetting.step(torch.randn(8, 4), torch.randn(8, 1))


class EvaluateOnly:
    """No backward anywhere: not a training loop (GG204's business, not GG203's)."""

    def __init__(self):
        self.model = nn.Linear(4, 1)
        self.total = 0.0

    @torch.no_grad()
    def step(self, x):
        self.total += self.model(x).sum()


evaluator = EvaluateOnly()
for _ in range(100):
    evaluator.step(torch.randn(8, 4))
