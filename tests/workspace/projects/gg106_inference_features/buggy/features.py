"""Feature extraction with a frozen backbone."""
import torch
from torch import nn

torch.manual_seed(0)
backbone = nn.Sequential(nn.Linear(8, 16), nn.ReLU())


@torch.inference_mode()
def extract(images):
    return backbone(images)
