"""The classifier."""
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(10, 32)
        self.out = nn.Linear(32, 4)

    def forward(self, inputs):
        hidden = torch.relu(self.hidden(inputs))
        return self.out(hidden)
