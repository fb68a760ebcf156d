"""A trainer whose loss is a default argument, `criterion=nn.CrossEntropyLoss()`, given a
model that already ends with `nn.Softmax`.

Modelled on a question raised against an LRCN activity-recognition repository
(https://github.com/doronharitan/human_activity_recognition_LRCN/issues/4): the network's
last layer was a softmax while training used CrossEntropyLoss, which applies log_softmax
itself; dropping the softmax layer made the model converge faster. Here the loss never
appears at the call, `Trainer(model)`: it is the default of `__init__`, evaluated once when
the `def` runs, so every trainer built without a criterion gets a CrossEntropyLoss.

The probabilities lie in [0, 1], so the loss of C classes can never fall below
log(1 + (C - 1) / e), however well the model separates them: the script checks that floor.

Look-alikes: the same default given a model that returns logits; a trainer whose every call
passes another criterion (a squared error against one-hot targets, the Brier score, for
which probabilities are right); a scoring function with the same default that is called
only through a table of hooks, with its own criterion.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn

N_CLASSES, FEATURES, FRAMES = 4, 12, 6


class ClipClassifier(nn.Module):
    """Frame features through an LSTM; the last hidden state scored per class."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(FEATURES, 16, batch_first=True)
        self.head = nn.Linear(16, N_CLASSES)
        self.out = nn.Softmax(dim=1)

    def forward(self, clips):
        _, (h, _) = self.lstm(clips)
        return self.out(self.head(h[-1]))


class ClipScorer(nn.Module):
    """The same network without the softmax: it returns logits."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(FEATURES, 16, batch_first=True)
        self.head = nn.Linear(16, N_CLASSES)

    def forward(self, clips):
        _, (h, _) = self.lstm(clips)
        return self.head(h[-1])


class Trainer:
    def __init__(self, model, criterion=nn.CrossEntropyLoss(), lr=0.05):
        self.model = model
        self.criterion = criterion
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def step(self, clips, labels):
        scores = self.model(clips)
        loss = self.criterion(scores, labels)  # expect: GG110
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


class LogitTrainer:
    def __init__(self, model, criterion=nn.CrossEntropyLoss(), lr=0.05):
        self.model = model
        self.criterion = criterion
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def step(self, clips, labels):
        scores = self.model(clips)
        loss = self.criterion(scores, labels)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


class BrierTrainer:
    def __init__(self, model, criterion=nn.CrossEntropyLoss(), lr=0.05):
        self.model = model
        self.criterion = criterion
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def step(self, clips, labels):
        probs = self.model(clips)
        loss = self.criterion(probs, F.one_hot(labels, N_CLASSES).float())
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


def score(model, clips, labels, criterion=nn.CrossEntropyLoss()):
    with torch.no_grad():
        probs = model(clips)
        return criterion(probs, F.one_hot(labels, N_CLASSES).float()).item()


HOOKS = {"score": score}


def fit(trainer, clips, labels, epochs=60):
    return [trainer.step(clips, labels) for _ in range(epochs)]


if __name__ == "__main__":
    torch.manual_seed(0)
    labels = torch.arange(16) % N_CLASSES
    clips = torch.randn(16, FRAMES, FEATURES) + 3 * F.one_hot(labels, FEATURES).float()[:, None]

    floor = math.log(1 + (N_CLASSES - 1) / math.e)
    on_probabilities = fit(Trainer(ClipClassifier()), clips, labels)
    assert min(on_probabilities) >= floor - 1e-6, (min(on_probabilities), floor)

    on_logits = fit(LogitTrainer(ClipScorer()), clips, labels)
    assert min(on_logits) < floor, (min(on_logits), floor)

    brier = fit(BrierTrainer(ClipClassifier(), nn.MSELoss()), clips, labels)
    assert brier[-1] < brier[0]
    kept = BrierTrainer(ClipClassifier(), criterion=nn.MSELoss())
    assert HOOKS["score"](kept.model, clips, labels, nn.MSELoss()) < 1.0
    print("ok: the loss on probabilities stays above", round(floor, 3))
