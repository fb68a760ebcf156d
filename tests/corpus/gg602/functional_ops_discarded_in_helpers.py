"""Functional ops whose result is thrown away outside `forward`: in a feature helper of the
model and in a head method, as in timm's xception at the pinned commit of the real-code
benchmark (`F.dropout(x, self.drop_rate, training=self.training)` as a statement: the
configured dropout never applies). Found first by a blind corpus a helper wrote for the
team (a CNN whose activation did nothing). Ops that write into `out=`, and expressions at
module level (a notebook displays a cell's last one), are not findings.
"""

import torch
import torch.nn.functional as F
from torch import nn


class SmallCNN(nn.Module):
    def __init__(self, drop_rate=0.2):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 4, 3, padding=1)
        self.fc = nn.Linear(4, 2)
        self.drop_rate = drop_rate

    def features(self, x):
        x = self.conv1(x)
        F.relu(x)  # expect: GG602
        return self.conv2(x).mean(dim=(2, 3))

    def head(self, x):
        if self.drop_rate:
            F.dropout(x, self.drop_rate, training=self.training)  # expect: GG602
        return self.fc(x)

    def forward(self, x):
        return self.head(self.features(x))


def running_max(history, current):
    torch.maximum(history, current, out=history)
    return history


def scaled(values, **options):
    torch.mul(values, 2.0, **options)
    return values


probe = torch.ones(3)
torch.sum(probe)

if __name__ == "__main__":
    net = SmallCNN()
    assert net(torch.randn(2, 1, 6, 6)).shape == (2, 2)
    assert running_max(torch.zeros(3), torch.ones(3)).sum().item() == 3.0
