"""A loop whose trip count is read from a `types.SimpleNamespace` of literal settings: it
certainly runs three times, so the retained backward runs again through the features
computed before it, after the step changed the convolution's weight. Look-alikes: a
namespace that may be changed, and one whose count is not a literal, stay silent."""

from types import SimpleNamespace

import torch
from torch import nn

STEPS = int("1")


def refine(encoder, head, x, cfg):
    optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
    features = encoder(x)
    for _ in range(cfg.repeats):
        loss = head(features).pow(2).mean()
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()  # expect: GG205


def refine_changed(encoder, head, x, cfg):
    cfg.rounds = 1
    optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
    features = encoder(x)
    for _ in range(cfg.rounds):
        loss = head(features).pow(2).mean()
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()


def refine_unknown(encoder, head, x, cfg):
    optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
    features = encoder(x)
    for _ in range(cfg.times):
        loss = head(features).pow(2).mean()
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()


settings = SimpleNamespace(repeats=3)
refine(nn.Conv1d(1, 2, 3), nn.Linear(6, 1), torch.randn(4, 1, 8), settings)
changing = SimpleNamespace(rounds=3)
refine_changed(nn.Conv1d(1, 2, 3), nn.Linear(6, 1), torch.randn(4, 1, 8), changing)
unknown = SimpleNamespace(times=STEPS)
refine_unknown(nn.Conv1d(1, 2, 3), nn.Linear(6, 1), torch.randn(4, 1, 8), unknown)
