"""A small regression network."""
import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(1, 8)
        self.out = nn.Linear(8, 1)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x)))


def make_optimizer(model):
    """The optimizer the project trains its models with."""
    return torch.optim.Adam(model.parameters(), lr=0.01)
