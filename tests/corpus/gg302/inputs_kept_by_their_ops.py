"""Ops whose backward formula reads their input, followed by an in-place change of that
input (or of the tensor it is a slice of) before backward.

`F.softplus`, `F.gelu`, `F.silu`, `F.elu`, `F.leaky_relu`, `torch.log`, `torch.sin`,
`torch.abs`, `x ** 2` / `x.pow(2)` and their `nn` layers keep their input for the backward
pass; so does any op reading a basic slice (`out[:, 1]`), which shares the storage and the
version counter of `out`. Changing the input in place afterwards makes backward raise "one
of the variables needed for gradient computation has been modified by an inplace
operation" (checked with torch 2.13.0). Ops that keep their result instead (relu,
sigmoid, softmax) are fine with their input changed: see
`negatives_inputs_not_kept.py`.

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorch/pytorch/issues/114505 - a column of a tensor written back
  from an op applied to another column of the same tensor (`b[:, 1] = F.softplus(...)`);
  the maintainer's answer: the slice the op read shares the tensor's version counter.
* https://github.com/PaddlePaddle/Paddle/pull/27901 - the rule documented with
  `var_b = var_a ** 2; var_c = var_b ** 2; var_b[1:2] = 3.3` failing the backward; the same
  holds in torch.

`SparseAutoencoder` changes `z` inside a `forward` that returns a tuple: the change reaches
the caller through the element whose graph saved `z` (the penalty), while
`ProbeAutoencoder`'s caller backpropagates only through an element the change does not
reach (no finding).
"""

import torch
import torch.nn.functional as F
from torch import nn


class GaussianHead(nn.Module):
    """Predicts a mean and a positive scale per sample, as regression heads often do."""

    def __init__(self, d: int = 8) -> None:
        super().__init__()
        self.fc = nn.Linear(d, 2)

    def forward(self, x):
        out = self.fc(x)
        out[:, 1] = F.softplus(out[:, 1]) + 1e-4  # expect: GG302
        return out


class SparseAutoencoder(nn.Module):
    def __init__(self, d: int = 8, k: int = 4) -> None:
        super().__init__()
        self.encoder = nn.Linear(d, k)
        self.decoder = nn.Linear(k, d)

    def forward(self, x):
        z = self.encoder(x)
        penalty = z.pow(2).mean()
        z.clamp_(-3.0, 3.0)  # expect: GG302
        return self.decoder(z), penalty


class ProbeAutoencoder(nn.Module):
    """`pow` saves `z`, then `z` is clamped: only `energy` runs through what `pow` saved."""

    def __init__(self, d: int = 8, k: int = 4) -> None:
        super().__init__()
        self.encoder = nn.Linear(d, k)
        self.probe = nn.Linear(d, 1)

    def forward(self, x):
        z = self.encoder(x)
        energy = z.pow(2).mean()
        z.clamp_(-3.0, 3.0)
        return energy, self.probe(x)


def train_probe(model, loader):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for x in loader:
        optimizer.zero_grad()
        _, score = model(x)
        score.mean().backward()
        optimizer.step()


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


def train_autoencoder(model, loader):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for x in loader:
        optimizer.zero_grad()
        recon, penalty = model(x)
        loss = F.mse_loss(recon, x) + 1e-3 * penalty
        loss.backward()
        optimizer.step()


def energy_then_patch(layer, x):
    feats = layer(x)
    energy = (feats**2).sum()
    feats[:, 0] = 0.0  # expect: GG302
    (energy + feats.sum()).backward()


if __name__ == "__main__":
    try:
        train_head(GaussianHead(), [(torch.randn(4, 8), torch.randn(4))])
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")
    try:
        train_autoencoder(SparseAutoencoder(), [torch.randn(4, 8)])
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")
    train_probe(ProbeAutoencoder(), [torch.randn(4, 8)])
    try:
        energy_then_patch(nn.Linear(8, 4), torch.randn(3, 8))
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")
