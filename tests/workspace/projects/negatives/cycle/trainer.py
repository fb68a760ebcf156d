"""Imports its loss from losses.py, which imports this module back: facts are unknown."""
import torch
from torch import nn

from losses import cycle_loss


def make_model():
    return nn.Linear(3, 1)


def train():
    model = make_model()
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    loss = cycle_loss(model, x, y)
    loss.backward()
