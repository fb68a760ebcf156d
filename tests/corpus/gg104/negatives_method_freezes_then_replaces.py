"""Constructors calling a freezing method that then gives the object a new head.

Look-alikes of `frozen_by_a_method_init_calls.py`: after freezing the encoder and the head,
the method hands the object to a helper that replaces the head with `setattr`, or calls
`add_module`, a method the class inherits, which here registers a new head under the old
name. Each model trains (torch 2.13.0), so no backward here may be reported.
"""

import torch
from torch import nn
import torch.nn.functional as F


def restore_head(model):
    setattr(model, "tagging", nn.Linear(16, model.tagging.out_features))


class LockedThenHelped(nn.Module):
    def __init__(self, vocab, tags):
        super().__init__()
        self.encoder = nn.Embedding(vocab, 16)
        self.tagging = nn.Linear(16, tags)
        self._lock()

    def _lock(self):
        for p in self.encoder.parameters():
            p.requires_grad = False
        for p in self.tagging.parameters():
            p.requires_grad = False
        restore_head(self)

    def forward(self, tokens):
        return self.tagging(torch.tanh(self.encoder(tokens)))


class LockedThenInheritedCall(nn.Module):
    def __init__(self, vocab, tags):
        super().__init__()
        self.encoder = nn.Embedding(vocab, 16)
        self.tagging = nn.Linear(16, tags)
        self._lock()

    def _lock(self):
        for p in self.encoder.parameters():
            p.requires_grad = False
        for p in self.tagging.parameters():
            p.requires_grad = False
        self.add_module("tagging", nn.Linear(16, self.tagging.out_features))

    def forward(self, tokens):
        return self.tagging(torch.tanh(self.encoder(tokens)))


def step(model):
    tokens = torch.randint(0, 30, (4, 7))
    labels = torch.randint(0, 5, (4, 7))
    loss = F.cross_entropy(model(tokens).flatten(0, 1), labels.flatten())
    loss.backward()
    return loss.item()


if __name__ == "__main__":
    for build in (LockedThenHelped, LockedThenInheritedCall):
        print(step(build(30, 5)))
