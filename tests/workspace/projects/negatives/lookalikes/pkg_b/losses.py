"""`loss_fn` of pkg_b: the same name in two packages."""
import torch
import torch.nn.functional as F


# recording stays on
def loss_fn(output, target):
    return F.mse_loss(output, target)
