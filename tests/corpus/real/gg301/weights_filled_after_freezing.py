"""Look-alikes of NYU-DLSP20#765 (https://github.com/Atcold/NYU-DLSP20/issues/765): a helper
writes a sinusoidal table into an embedding's weight. Here nothing raises, because the weight
no longer requires grad when the helper runs, or the writes happen under no_grad."""

import numpy as np
import torch
from torch import nn


def write_table(nb_p, dim, E):
    theta = np.array([[p / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for p in range(nb_p)])
    E[:, 0::2] = torch.FloatTensor(np.sin(theta[:, 0::2]))
    E[:, 1::2] = torch.FloatTensor(np.cos(theta[:, 1::2]))


# The weight is frozen first: an in-place store into a leaf that does not require grad.
class FrozenPositions(nn.Module):
    def __init__(self, d_model, max_positions):
        super().__init__()
        self.positions = nn.Embedding(max_positions, d_model)
        self.positions.weight.requires_grad = False
        write_table(max_positions, d_model, self.positions.weight)

    def forward(self, ids):
        return self.positions(ids)


def write_table_quietly(nb_p, dim, E):
    with torch.no_grad():
        E[:, 0::2] = torch.zeros(nb_p, (dim + 1) // 2)


# The helper makes its writes under no_grad.
class QuietPositions(nn.Module):
    def __init__(self, d_model, max_positions):
        super().__init__()
        self.positions = nn.Embedding(max_positions, d_model)
        write_table_quietly(max_positions, d_model, self.positions.weight)

    def forward(self, ids):
        return self.positions(ids)


if __name__ == "__main__":
    print(FrozenPositions(6, 5)(torch.arange(3)).shape, QuietPositions(6, 5)(torch.arange(3)).shape)
