"""A small autoencoder for 20-feature rows."""
import torch
from torch import nn


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(20, 4)
        self.decoder = nn.Linear(4, 20)

    def forward(self, rows):
        code = torch.tanh(self.encoder(rows))
        return self.decoder(code)
