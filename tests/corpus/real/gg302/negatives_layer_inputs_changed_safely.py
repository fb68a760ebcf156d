"""Look-alikes of a layer input changed in place: the change comes before the layer, a
copy is changed, the add is out of place, the layer's weights are frozen and its input
needs no grad (nothing saved), or the change happens under `torch.no_grad()` to a tensor
no graph kept.

Source: the out-of-place fix of https://github.com/microsoft/unilm/pull/999 (`x = x.clone()
+ x_conv`).
"""

import torch
from torch import nn


class ConvPositionalBlockFixed(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.pos_conv = nn.Conv1d(dim, dim, 3, padding=1)

    def forward(self, x):
        x = self.norm(x)
        x_conv = self.pos_conv(x.transpose(1, 2)).transpose(1, 2)
        x = x + x_conv
        return x


class MaskBeforeTheLayer(nn.Module):
    def __init__(self, n_in: int = 5, n_out: int = 3) -> None:
        super().__init__()
        self.hidden = nn.Linear(n_in, 16)
        self.out = nn.Linear(16, n_out)

    def forward(self, x):
        x[:, 0] = 0
        h = torch.relu(self.hidden(x))
        masked = x.clone()
        masked[:, 1] = 0
        return self.out(h) + masked.sum()


def frozen_projection(x):
    proj = nn.Linear(5, 5)
    for p in proj.parameters():
        p.requires_grad = False
    y = proj(x)
    x.add_(1)
    return y


def train_block(model, batches):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for x in batches:
        optimizer.zero_grad()
        model(x).pow(2).mean().backward()
        optimizer.step()


def train_classifier(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()


def evaluate(model, batches):
    with torch.no_grad():
        for x in batches:
            h = model.hidden(x)
            x[:, 0] = 0
            print(h.sum().item())


if __name__ == "__main__":
    train_block(ConvPositionalBlockFixed(), [torch.randn(2, 6, 8)])
    net = MaskBeforeTheLayer()
    train_classifier(net, [(torch.randn(4, 5), torch.tensor([0, 1, 2, 0]))])
    evaluate(net, [torch.randn(4, 5)])
    w = torch.randn(5, requires_grad=True)
    (frozen_projection(torch.randn(3, 5)) * w).sum().backward()
