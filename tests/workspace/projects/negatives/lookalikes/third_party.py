"""`losses` here is an installed package; vendor/losses.py is not on an import root."""
import torch
from torch import nn

from losses import loss_fn

model = nn.Linear(3, 1)
loss = loss_fn(model(torch.randn(4, 3)), torch.randn(4, 1))
loss.backward()
