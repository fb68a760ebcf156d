"""Blocks whose forward ends in an activation that keeps its result, changed in place by
the code calling them.

https://github.com/pytorch/vision/issues/807: the torchvision maintainers explain that
putting the ReLU before the residual `out += identity` makes backward fail, because ReLU
keeps its own output for the backward pass and `+=` overwrites it;
https://github.com/pytorch/pytorch/issues/148835 hits the same error with `relu_` on a
`relu` result. Here the activation is the last step of a block's own `forward` (or of a
helper function), and the in-place change sits in the caller, one call away.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return F.relu(self.fc(x))


def gated(t, proj):
    return torch.sigmoid(proj(t))


class Net(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.first = Block(width)
        self.second = Block(width)
        self.gate = nn.Linear(width, width)
        self.head = nn.Linear(width, 1)

    def forward(self, x):
        h = self.first(x)
        h += x  # expect: GG302
        g = gated(h, self.gate)
        g[:, 0] = 1.0  # expect: GG302
        return self.head(self.second(h) * g)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = Net(6)
    net(torch.randn(4, 6)).sum().backward()
