"""What the loop measures."""
import torch.nn.functional as F


def step_loss(output, target):
    return F.mse_loss(output, target)
