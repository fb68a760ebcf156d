"""pkg_a's no_grad loss_fn is imported, then a local function of the same name wins."""
import torch
from torch import nn

from pkg_a.losses import loss_fn


def loss_fn(output, target):
    return (output - target).pow(2).mean()


model = nn.Linear(3, 1)
loss = loss_fn(model(torch.randn(4, 3)), torch.randn(4, 1))
loss.backward()
