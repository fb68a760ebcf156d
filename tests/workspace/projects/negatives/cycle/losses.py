"""Part of an import cycle with trainer.py."""
import torch
import torch.nn.functional as F

from trainer import make_model


@torch.no_grad()
def cycle_loss(model, x, y):
    return F.mse_loss(model(x), y)


def reference():
    return make_model()
