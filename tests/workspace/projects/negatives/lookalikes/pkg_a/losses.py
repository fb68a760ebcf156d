"""`loss_fn` of pkg_a: the same name in two packages."""
import torch
import torch.nn.functional as F


@torch.no_grad()
def loss_fn(output, target):
    return F.mse_loss(output, target)
