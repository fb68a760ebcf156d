"""Not on any import root: `from losses import ...` elsewhere means an installed package."""
import torch


@torch.no_grad()
def loss_fn(output, target):
    return (output - target).pow(2).mean()
