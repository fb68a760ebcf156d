"""A star import from a project module stays unknown."""
import torch
from torch import nn

from pkg_a.losses import *  # noqa: F403

model = nn.Linear(3, 1)
loss = loss_fn(model(torch.randn(4, 3)), torch.randn(4, 1))  # noqa: F405
loss.backward()
