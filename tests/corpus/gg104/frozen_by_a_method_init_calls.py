"""A constructor that calls its own freezing method, which freezes one layer too many.

Detection code often keeps the freezing in a method of the model (`_freeze_stages()` in
mmdetection's backbones) that `__init__` calls once the layers exist. In
https://github.com/open-mmlab/mmdetection/issues/3667 the head ended up frozen along with the
backbone, so the first `loss.backward()` raised "element 0 of tensors does not require grad
and does not have a grad_fn". Here a tagger's `_lock()` freezes the encoder and the tagging
head both (checked with torch 2.13.0: backward raises).

Silent look-alikes (each trains, torch 2.13.0): a method that freezes the encoder only; one
that freezes both, then gives the object a new head; a freeze called only under a flag; a model whose encoder is a
module built elsewhere and handed in.
"""

import torch
from torch import nn
import torch.nn.functional as F


class Tagger(nn.Module):
    def __init__(self, vocab, tags):
        super().__init__()
        self.encoder = nn.Embedding(vocab, 16)
        self.tagging = nn.Linear(16, tags)
        self._lock()

    def _lock(self):
        for p in self.encoder.parameters():
            p.requires_grad = False
        for p in self.tagging.parameters():  # expect: GG104
            p.requires_grad = False

    def forward(self, tokens):
        return self.tagging(torch.tanh(self.encoder(tokens)))


class EncoderLocked(nn.Module):
    def __init__(self, vocab, tags):
        super().__init__()
        self.encoder = nn.Embedding(vocab, 16)
        self.tagging = nn.Linear(16, tags)
        self._lock()

    def _lock(self):
        for p in self.encoder.parameters():
            p.requires_grad = False

    def forward(self, tokens):
        return self.tagging(torch.tanh(self.encoder(tokens)))


class LockedThenNewHead(nn.Module):
    def __init__(self, vocab, tags):
        super().__init__()
        self.encoder = nn.Embedding(vocab, 16)
        self.tagging = nn.Linear(16, tags)
        self._lock(tags)

    def _lock(self, tags):
        for p in self.encoder.parameters():
            p.requires_grad = False
        for p in self.tagging.parameters():
            p.requires_grad = False
        self.tagging = nn.Linear(16, tags)

    def forward(self, tokens):
        return self.tagging(torch.tanh(self.encoder(tokens)))


class LockedOnRequest(nn.Module):
    def __init__(self, vocab, tags, locked):
        super().__init__()
        self.encoder = nn.Embedding(vocab, 16)
        self.tagging = nn.Linear(16, tags)
        if locked:
            self._lock()

    def _lock(self):
        for p in self.encoder.parameters():
            p.requires_grad = False
        for p in self.tagging.parameters():
            p.requires_grad = False

    def forward(self, tokens):
        return self.tagging(torch.tanh(self.encoder(tokens)))


class GivenEncoder(nn.Module):
    def __init__(self, encoder, tags):
        super().__init__()
        self.encoder = encoder
        self.tagging = nn.Linear(16, tags)
        self._lock()

    def _lock(self):
        for p in self.tagging.parameters():
            p.requires_grad = False

    def forward(self, tokens):
        return self.tagging(torch.tanh(self.encoder(tokens)))


def step(model):
    tokens = torch.randint(0, 30, (4, 7))
    labels = torch.randint(0, 5, (4, 7))
    loss = F.cross_entropy(model(tokens).flatten(0, 1), labels.flatten())
    loss.backward()
    return loss.item()


def fit_tagger(steps):
    model = Tagger(30, 5)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(steps):
        tokens = torch.randint(0, 30, (4, 7))
        labels = torch.randint(0, 5, (4, 7))
        loss = F.cross_entropy(model(tokens).flatten(0, 1), labels.flatten())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    for build in (EncoderLocked, LockedThenNewHead):
        step(build(30, 5))
    step(LockedOnRequest(30, 5, locked=False))
    step(GivenEncoder(nn.Sequential(nn.Embedding(30, 16), nn.Linear(16, 16)), 5))
    try:
        fit_tagger(2)
    except RuntimeError as err:
        print("Tagger:", str(err).splitlines()[0])
