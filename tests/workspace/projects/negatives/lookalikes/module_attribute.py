"""`import pkg_a.losses as losses`: attributes of a module object are not followed (yet)."""
import torch
from torch import nn

import pkg_a.losses as losses

model = nn.Linear(3, 1)
loss = losses.loss_fn(model(torch.randn(4, 3)), torch.randn(4, 1))
loss.backward()
