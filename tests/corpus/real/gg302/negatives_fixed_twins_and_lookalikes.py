"""The fixed twins of the in-place cases in this folder, each trained by its own loop, and
look-alikes that must stay silent: a copy changed instead of the saved tensor, a reshape
(view or copy, not known), an in-place change before the op that saves, a helper that
masks the scores before the softmax, a helper whose softmax input does not require grad,
and a view of a copy.

Sources: the fixes given in https://github.com/AggMan96/RK-Net/issues/9 (`att.clone()`),
https://github.com/BierOne/bottom-up-attention-vqa/issues/6 (`inplace=False`),
https://github.com/microsoft/unilm/pull/999 (out-of-place add) and
https://github.com/yaohungt/Multimodal-Transformer/issues/30 (out-of-place scaling).
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class BorderAttentionFixed(nn.Module):
    def __init__(self, channels: int = 4, polish: bool = True) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, 1, 3, padding=1)
        self.polish = polish

    def forward(self, x):
        att = F.relu(self.conv(x))
        if self.polish:
            att = att.clone()
            att[:, :, :, 0] = 0
            att[:, :, :, -1] = 0
        return x * att


class SimpleClassifierFixed(nn.Module):
    def __init__(self, in_dim: int, hid_dim: int, out_dim: int, dropout: float) -> None:
        super().__init__()
        layers = [
            nn.Linear(in_dim, hid_dim),
            nn.ReLU(),
            nn.Dropout(dropout, inplace=False),
            nn.Linear(hid_dim, out_dim),
        ]
        self.main = nn.Sequential(*layers)

    def forward(self, x):
        return self.main(x)


class GatedBlockFixed(nn.Module):
    def __init__(self, dim: int = 6) -> None:
        super().__init__()
        self.value = nn.Linear(dim, dim)
        self.gate = nn.Linear(dim, dim)

    def forward(self, x):
        gate = torch.sigmoid(self.gate(x)) + 0.1
        out = self.value(x) * gate
        out += x
        return out


class ElmanCellFixed(nn.Module):
    def __init__(self, n_in: int = 3, n_hidden: int = 5) -> None:
        super().__init__()
        self.ih = nn.Linear(n_in, n_hidden)
        self.hh = nn.Linear(n_hidden, n_hidden)

    def forward(self, x, h):
        h = torch.tanh(self.ih(x) + self.hh(h))
        return h.clamp(-0.99, 0.99)


class ReshapedGate(nn.Module):
    """`reshape` may return a copy: changing its result is not known to touch the gate."""

    def __init__(self, dim: int = 6) -> None:
        super().__init__()
        self.gate = nn.Linear(dim, dim)

    def forward(self, x):
        gate = torch.sigmoid(self.gate(x))
        flat = gate.clone().view(-1)
        flat += 0.1
        scaled = gate.reshape(-1) * 2
        scaled += 1
        return flat.sum() + scaled.sum()


class ChangedBeforeTheActivation(nn.Module):
    """The residual is added before the activation saves anything (as ResNet does)."""

    def __init__(self, dim: int = 6) -> None:
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        out = self.fc(x)
        out = out.view(out.size(0), -1)
        out += x
        return torch.sigmoid(out)


def attend_masked_first(q, k, v, pad_mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    scores = scores.masked_fill(pad_mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v


def attend_in_place(q, k, v, pad_mask):
    weights = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
    weights.masked_fill_(pad_mask, 0.0)
    return weights @ v


class MaskedFirstAttention(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.q_proj = nn.Linear(dim, dim)
        self.v_proj = nn.Linear(dim, dim)

    def forward(self, x, pad_mask):
        q = self.q_proj(x)
        return attend_masked_first(q, q, self.v_proj(x), pad_mask)


class FixedKeysAttention(nn.Module):
    """Queries and keys are fixed buffers: the softmax input does not require grad, so
    nothing was saved and the in-place mask inside the helper is harmless."""

    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.register_buffer("keys", torch.randn(5, dim))
        self.v_proj = nn.Linear(dim, dim)

    def forward(self, x, pad_mask):
        plain = torch.randn(2, 5, 8)
        return attend_in_place(plain, plain, self.v_proj(x), pad_mask)


def train_border(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for images, targets in loader:
        optimizer.zero_grad()
        F.mse_loss(model(images), targets).backward()
        optimizer.step()


def train_classifier(model, loader):
    optim = torch.optim.Adamax(model.parameters())
    for v, a in loader:
        loss = F.binary_cross_entropy_with_logits(model(v), a)
        loss.backward()
        optim.step()
        optim.zero_grad()


def train_block(model, x, y):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    optimizer.zero_grad()
    F.mse_loss(model(x), y).backward()
    optimizer.step()


def run_cell(cell, head, seq, target):
    h = torch.zeros(seq.size(1), 5)
    for x in seq:
        h = cell(x, h)
    (head(h) - target).pow(2).mean().backward()


def train_gate(model, x):
    model(x).backward()


def train_residual(model, x):
    model(x).sum().backward()


def train_attention(model, x, mask):
    model(x, mask).sum().backward()


def train_fixed_keys(model, x, mask):
    model(x, mask).sum().backward()


if __name__ == "__main__":
    train_border(BorderAttentionFixed(), [(torch.randn(2, 4, 6, 6), torch.randn(2, 4, 6, 6))])
    train_classifier(SimpleClassifierFixed(8, 16, 3, 0.5), [(torch.randn(4, 8), torch.rand(4, 3))])
    train_block(GatedBlockFixed(), torch.randn(4, 6), torch.randn(4, 6))
    run_cell(ElmanCellFixed(), nn.Linear(5, 1), torch.randn(4, 2, 3), torch.randn(2, 1))
    train_gate(ReshapedGate(), torch.randn(4, 6))
    train_residual(ChangedBeforeTheActivation(), torch.randn(4, 6))
    mask = torch.zeros(2, 5, 5, dtype=torch.bool)
    mask[:, :, -1] = True
    train_attention(MaskedFirstAttention(), torch.randn(2, 5, 8), mask)
    train_fixed_keys(FixedKeysAttention(), torch.randn(2, 5, 8), mask)
