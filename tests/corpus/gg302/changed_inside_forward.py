"""In-place changes inside `forward` of tensors the forward's own graph saved, found when the
backward runs in the training loop that calls the model.

Shapes from "one of the variables needed for gradient computation has been modified by an
inplace operation" threads (discuss.pytorch.org, Stack Overflow, GitHub issues on residual
and attention blocks): `out += identity` after an activation that saves its output, a
`masked_fill_` on attention weights after softmax, `x[:, 0] = ...` after a sigmoid. The
fixed shapes (out-of-place forms, changes before the saving op, ReLU's own in-place output)
are look-alikes that must stay silent.
"""

import torch
from torch import nn
import torch.nn.functional as F


class GatedResidual(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.gate = nn.Sigmoid()

    def forward(self, x):
        out = self.gate(self.fc(x))
        out += x  # expect: GG302
        return out


class MaskedAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.query = nn.Linear(8, 8)

    def forward(self, x, mask):
        q = self.query(x)
        weights = torch.softmax(q @ x.transpose(-1, -2), dim=-1)
        weights.masked_fill_(mask, 0.0)  # expect: GG302
        return weights @ x


class OutOfPlace(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x, mask):
        out = torch.sigmoid(self.fc(x))
        out = out + x
        weights = torch.softmax(out @ x.transpose(-1, -2), dim=-1).masked_fill(mask, 0.0)
        return weights @ x


class ChangedBeforeSaving(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        h += 1.0
        return torch.sigmoid(h)


class ChangedButNotReturned(nn.Module):
    """The changed tensor never reaches the output: no backward runs through it."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.last_gate = None

    def forward(self, x):
        gate = torch.sigmoid(self.fc(x))
        probe = gate.detach()
        probe.mul_(2)
        return self.fc(x)


def train(batches):
    residual = GatedResidual()
    attention = MaskedAttention()
    plain = OutOfPlace()
    early = ChangedBeforeSaving()
    side = ChangedButNotReturned()
    mask = torch.zeros(4, 4, dtype=torch.bool)
    for x in batches:
        residual(x).sum().backward()
        attention(x, mask).sum().backward()
        plain(x, mask).sum().backward()
        early(x).sum().backward()
        side(x).sum().backward()
        F.mse_loss(residual(x), x)  # expect: GG602


train([torch.randn(4, 8)])
