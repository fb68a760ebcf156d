"""A trainer whose step method starts the recurrent state itself and keeps it on `self`.

The shape of many language-model trainers: the model is handed to the trainer (and moved
to its device there), `train_step` creates the state on its first call
(`if self.hidden is None:`), runs the model, backpropagates, and stores the returned state
for the next call; `train_epoch` calls `train_step` for every window. Without a detach the
second window's backward reaches into the first window's freed graph: "Trying to backward
through the graph a second time" (checked with torch 2.13.0). Found by a blind corpus a
helper wrote for the team (an LSTM language-model trainer).
"""

import torch
from torch import nn


class WindowModel(nn.Module):
    def __init__(self, vocab=20, width=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.lstm = nn.LSTM(width, width, batch_first=True)
        self.head = nn.Linear(width, vocab)

    def start_state(self, batch):
        return torch.zeros(1, batch, 8), torch.zeros(1, batch, 8)

    def forward(self, tokens, state):
        out, state = self.lstm(self.embed(tokens), state)
        return self.head(out), state


class Trainer:
    def __init__(self, model, device="cpu"):
        self.model = model.to(device)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.hidden = None

    def train_step(self, tokens, targets):
        if self.hidden is None:
            self.hidden = self.model.start_state(tokens.size(0))
        self.optimizer.zero_grad()
        logits, new_hidden = self.model(tokens, self.hidden)
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
        loss.backward()
        self.optimizer.step()
        self.hidden = new_hidden  # expect: GG201
        return loss.item()

    def train_epoch(self, windows):
        self.hidden = None
        losses = []
        for tokens, targets in windows:
            losses.append(self.train_step(tokens, targets))
        return losses


class DetachingTrainer:
    """The same step, state detached where it is kept: no finding."""

    def __init__(self, model, device="cpu"):
        self.model = model.to(device)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.hidden = None

    def train_step(self, tokens, targets):
        if self.hidden is None:
            self.hidden = self.model.start_state(tokens.size(0))
        self.optimizer.zero_grad()
        logits, new_hidden = self.model(tokens, self.hidden)
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
        loss.backward()
        self.optimizer.step()
        self.hidden = tuple(h.detach() for h in new_hidden)
        return loss.item()


class ResettingTrainer:
    """State started afresh on every call (`is None` test on a local name): no finding."""

    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def train_step(self, tokens, targets):
        hidden = None
        if hidden is None:
            hidden = self.model.start_state(tokens.size(0))
        self.optimizer.zero_grad()
        logits, _ = self.model(tokens, hidden)
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
        loss.backward()
        self.optimizer.step()
        return loss.item()


def windows(count=3):
    return [(torch.randint(0, 20, (2, 5)), torch.randint(0, 20, (2, 5))) for _ in range(count)]


if __name__ == "__main__":
    try:
        Trainer(WindowModel()).train_epoch(windows())
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the second backward to fail")
    detaching = DetachingTrainer(WindowModel())
    for tokens, targets in windows():
        detaching.train_step(tokens, targets)
    trainer = ResettingTrainer(WindowModel())
    for tokens, targets in windows():
        trainer.train_step(tokens, targets)
