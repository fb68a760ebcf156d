"""Look-alikes of `inputs_kept_by_their_ops.py` that run (checked with torch 2.13.0):

* the column is written into a copy (`params = out.clone()`), not into the tensor whose
  slice the op read;
* the slice is taken with an index tensor (advanced indexing copies: nothing of `out`'s
  storage is kept);
* the op keeps its result, not its input (`F.relu`, `torch.sigmoid`), and the input is
  a linear layer's output, which nothing kept;
* the input is changed before the op, or after the backward pass;
* the same code under `torch.no_grad()`.
"""

import torch
import torch.nn.functional as F
from torch import nn


class GaussianHead(nn.Module):
    def __init__(self, d: int = 8) -> None:
        super().__init__()
        self.fc = nn.Linear(d, 2)

    def forward(self, x):
        out = self.fc(x)
        params = out.clone()
        params[:, 1] = F.softplus(out[:, 1]) + 1e-4
        return params


class IndexedHead(nn.Module):
    def __init__(self, d: int = 8) -> None:
        super().__init__()
        self.fc = nn.Linear(d, 2)
        self.register_buffer("scale_column", torch.tensor([1]))

    def forward(self, x):
        out = self.fc(x)
        out[:, self.scale_column] = F.softplus(out[:, self.scale_column])
        return out


def gaussian_nll(head, x, y):
    out = head(x)
    mean, scale = out[:, 0], out[:, 1]
    return (torch.log(scale) + (y - mean) ** 2 / (2 * scale**2)).mean()


def train_head(head, loader):
    optimizer = torch.optim.Adam(head.parameters(), lr=1e-3)
    for x, y in loader:
        optimizer.zero_grad()
        loss = gaussian_nll(head, x, y)
        loss.backward()
        optimizer.step()


def gate_then_shift(layer, x):
    h = layer(x)
    gate = torch.sigmoid(h)
    act = F.relu(h)
    h += 1.0
    (gate * act).sum().backward()


def clamp_before_penalty(layer, x):
    z = layer(x)
    z.clamp_(-3.0, 3.0)
    penalty = z.pow(2).mean()
    penalty.backward()


def patch_after_backward(layer, x):
    feats = layer(x)
    energy = (feats**2).sum()
    energy.backward()
    feats.detach()[:, 0] = 0.0
    return feats


def preview(layer, x):
    with torch.no_grad():
        out = layer(x)
        out[:, 1] = F.softplus(out[:, 1])
    return out


if __name__ == "__main__":
    train_head(GaussianHead(), [(torch.randn(4, 8), torch.randn(4))])
    train_head(IndexedHead(), [(torch.randn(4, 8), torch.randn(4))])
    gate_then_shift(nn.Linear(8, 4), torch.randn(3, 8))
    clamp_before_penalty(nn.Linear(8, 4), torch.randn(3, 8))
    patch_after_backward(nn.Linear(8, 4), torch.randn(3, 8))
    preview(nn.Linear(8, 2), torch.randn(3, 8))
