"""Two star imports: which one binds `loss_fn` (pkg_b's, the last) is not followed."""
import torch
from torch import nn

from pkg_a.losses import *  # noqa: F403
from pkg_b.losses import *  # noqa: F403

model = nn.Linear(3, 1)
loss = loss_fn(model(torch.randn(4, 3)), torch.randn(4, 1))  # noqa: F405
loss.backward()
