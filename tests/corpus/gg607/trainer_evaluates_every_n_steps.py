"""A trainer that evaluates every few steps through a helper of a helper, and never
switches its model back to training mode.

`train_epoch` puts `self.model` in training mode once, then calls `train_step` and
`_maybe_evaluate` for every batch; `_maybe_evaluate` calls `evaluate` every `eval_every`
steps, which switches the model to eval mode. From then on the model trains with dropout
off and batch norm frozen on its running statistics (`num_batches_tracked` stops growing,
checked with torch 2.13.0). The optimizer is built in `__init__` from the `model` argument
the trainer keeps as `self.model`. Found by a blind corpus a helper wrote for the team.
"""

import torch
import torch.nn.functional as F
from torch import nn


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.2))
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.body(x))


class Trainer:
    def __init__(self, model, batches, eval_every=2):
        self.model = model
        self.batches = batches
        self.eval_every = eval_every
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.steps = 0

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        return sum((self.model(x).argmax(1) == y).sum().item() for x, y in self.batches)

    def _maybe_evaluate(self):
        if self.steps % self.eval_every:
            return
        print("correct:", self.evaluate())

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        F.cross_entropy(self.model(x), y).backward()
        self.optimizer.step()
        self.steps += 1

    def train_epoch(self):
        self.model.train()
        for x, y in self.batches:
            self.train_step(x, y)
            self._maybe_evaluate()  # expect: GG607


class RestoringTrainer:
    """The same, with the evaluation switching the model back: no finding."""

    def __init__(self, model, batches, eval_every=2):
        self.model = model
        self.batches = batches
        self.eval_every = eval_every
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.steps = 0

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        correct = sum((self.model(x).argmax(1) == y).sum().item() for x, y in self.batches)
        self.model.train()
        return correct

    def _maybe_evaluate(self):
        if self.steps % self.eval_every:
            return
        print("correct:", self.evaluate())

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        F.cross_entropy(self.model(x), y).backward()
        self.optimizer.step()
        self.steps += 1

    def train_epoch(self):
        self.model.train()
        for x, y in self.batches:
            self.train_step(x, y)
            self._maybe_evaluate()


def batches(count=6):
    return [(torch.randn(4, 6), torch.randint(0, 2, (4,))) for _ in range(count)]


if __name__ == "__main__":
    net = SmallNet()
    Trainer(net, batches()).train_epoch()
    assert net.body[1].num_batches_tracked.item() < 6  # batch norm stopped tracking
    other = SmallNet()
    RestoringTrainer(other, batches()).train_epoch()
    assert other.body[1].num_batches_tracked.item() == 6
