"""A binary detector returning logits."""
import torch
from torch import nn


class Detector(nn.Module):
    def __init__(self, features=6):
        super().__init__()
        self.body = nn.Linear(features, 16)
        self.head = nn.Linear(16, 1)

    def forward(self, inputs):
        hidden = torch.relu(self.body(inputs))
        return self.head(hidden)
