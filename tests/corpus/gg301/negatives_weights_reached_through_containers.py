"""Look-alikes of `weights_reached_through_containers.py` that run (checked with torch
2.13.0): the same paths written under `torch.no_grad()` or through `.data`, a buffer
reached through a container (`running_mean` does not require grad), a Sequential the file
changes after building it (its items are then not known), a list of plain tensors, and
biases that are not the layer's own trainable one (built without, or replaced by a frozen
parameter).
"""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.norm = nn.BatchNorm1d(width)

    def forward(self, x):
        return self.norm(self.fc(x))


class Stack(nn.Module):
    def __init__(self, width=4, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def boost_safely(model, layer, column):
    with torch.no_grad():
        model.blocks[layer].fc.weight[:, column] += 1.0
    model.blocks[layer].fc.weight.data[:, column] *= 0.5
    model.blocks[layer].norm.running_mean[column] = 0.0


def rebuilt_head():
    stack = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
    stack[0] = nn.Identity()
    stack[1] = nn.Identity()
    return stack


def plain_entries():
    rows = [torch.zeros(3), torch.ones(3)]
    rows[0][1] = 5.0
    grid = torch.zeros(2, 3)
    grid[0][1] = 1.0
    return rows, grid


def frozen_biases():
    plain = nn.Linear(4, 2, bias=False)
    plain.register_parameter("bias", nn.Parameter(torch.zeros(2), requires_grad=False))
    plain.bias[0] = 1.0
    head = nn.Linear(4, 2)
    head.bias = nn.Parameter(torch.zeros(2), requires_grad=False)
    head.bias[1] = 1.0
    norm = nn.LayerNorm(4, elementwise_affine=False)
    return plain, head, norm


if __name__ == "__main__":
    frozen_biases()
    boost_safely(Stack(), 1, 2)
    rebuilt_head()
    plain_entries()
