"""Look-alikes of changing a block's kept result in place: the block ends in a layer that
keeps its input, not its output (a norm layer, as torchvision's ResNet blocks do before
adding the shortcut), the caller adds out of place or changes a copy, or the helper runs
under no_grad and builds no graph."""

import torch
import torch.nn.functional as F
from torch import nn


class NormBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return self.norm(F.relu(self.fc(x)))


class ActBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return torch.tanh(self.fc(x))


def gated(t, proj):
    return torch.sigmoid(proj(t))


class Net(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.first = NormBlock(width)
        self.second = ActBlock(width)
        self.gate = nn.Linear(width, width)
        self.head = nn.Linear(width, 1)

    def forward(self, x):
        h = self.first(x)
        h += x
        k = self.second(h)
        k = k + x
        g = gated(h, self.gate).clone()
        g[:, 0] = 1.0
        with torch.no_grad():
            mask = gated(x, self.gate)
        mask[:, 1] = 0.0
        return self.head(k * g * mask)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = Net(6)
    net(torch.randn(4, 6)).sum().backward()
    print("ok")
