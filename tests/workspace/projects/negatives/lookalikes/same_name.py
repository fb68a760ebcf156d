"""Imports pkg_b's loss_fn, not pkg_a's."""
import torch
from torch import nn

from pkg_b.losses import loss_fn

model = nn.Linear(3, 1)
loss = loss_fn(model(torch.randn(4, 3)), torch.randn(4, 1))
loss.backward()
