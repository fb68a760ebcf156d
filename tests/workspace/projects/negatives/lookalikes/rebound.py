"""pkg_a's no_grad loss_fn is imported, then replaced before use."""
import torch
import torch.nn.functional as F
from torch import nn

from pkg_a.losses import loss_fn

loss_fn = F.mse_loss


def train(model, x, y):
    loss = loss_fn(model(x), y)
    loss.backward()


train(nn.Linear(3, 1), torch.randn(4, 3), torch.randn(4, 1))
