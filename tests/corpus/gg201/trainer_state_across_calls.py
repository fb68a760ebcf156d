"""Recurrent state a trainer object keeps on `self` between calls of its step method.

Modelled on the shape of many public char-RNN / language-model trainers (for example the
"Trying to backward through the graph a second time" threads on discuss.pytorch.org about
a `train_step` method that stores `self.hidden`): the loop lives in the caller, the
backward inside the method, and the state crosses from one call to the next on `self`.
"""

import torch
from torch import nn
import torch.nn.functional as F


class CharModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(8, 16)
        self.head = nn.Linear(16, 8)

    def forward(self, x, state):
        out, state = self.rnn(x, state)
        return self.head(out), state


class Trainer:
    def __init__(self):
        self.model = CharModel()
        self.optimizer = torch.optim.Adam(self.model.parameters())
        self.state = None

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        out, self.state = self.model(x, self.state)  # expect: GG201
        loss = F.mse_loss(out, y)
        loss.backward()
        self.optimizer.step()
        return loss.item()


trainer = Trainer()
for _ in range(10):
    trainer.train_step(torch.randn(4, 2, 8), torch.randn(4, 2, 8))


class DetachingTrainer:
    """Same shape, state detached at the start of every step: no finding."""

    def __init__(self):
        self.model = CharModel()
        self.optimizer = torch.optim.Adam(self.model.parameters())
        self.state = None

    def train_step(self, x, y):
        if self.state is not None:
            self.state = tuple(s.detach() for s in self.state)
        self.optimizer.zero_grad()
        out, self.state = self.model(x, self.state)
        loss = F.mse_loss(out, y)
        loss.backward()
        self.optimizer.step()


detaching = DetachingTrainer()
for _ in range(10):
    detaching.train_step(torch.randn(4, 2, 8), torch.randn(4, 2, 8))


class ResettingTrainer:
    """Fresh state on every call: nothing crosses calls."""

    def __init__(self):
        self.model = CharModel()
        self.optimizer = torch.optim.Adam(self.model.parameters())
        self.state = None

    def train_step(self, x, y):
        self.state = None
        out, self.state = self.model(x, self.state)
        loss = F.mse_loss(out, y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


resetting = ResettingTrainer()
for _ in range(10):
    resetting.train_step(torch.randn(4, 2, 8), torch.randn(4, 2, 8))


class CalledOnce:
    """The step runs once: the state never reaches a second backward."""

    def __init__(self):
        self.model = CharModel()
        self.state = None

    def train_step(self, x, y):
        out, self.state = self.model(x, self.state)
        F.mse_loss(out, y).backward()


CalledOnce().train_step(torch.randn(4, 2, 8), torch.randn(4, 2, 8))


class StoresOnlyTheOutput:
    """The method keeps its output on `self` but never reads it back as input."""

    def __init__(self):
        self.model = CharModel()
        self.last = None

    def train_step(self, x, y):
        out, _ = self.model(x, None)
        self.last = out
        F.mse_loss(out, y).backward()


keeper = StoresOnlyTheOutput()
for _ in range(10):
    keeper.train_step(torch.randn(4, 2, 8), torch.randn(4, 2, 8))
