"""GG502 - fixed: the log-density helper stays in torch instead of calling .numpy().

A semi-supervised VAE computes log q(z|x) with a helper that mixes numpy and
torch: the log-determinant term turns the encoder variance into a numpy array
with var.numpy().  The variance comes out of the encoder, so it requires grad
and torch refuses the conversion.
(That raised: RuntimeError: Can't call numpy() on Tensor that requires grad.)
The fix computes the log-determinant with torch.log, which also keeps the
gradient of the term.

Modelled on: https://github.com/GuHY777/SS-VAE-pytorch/issues/1
"""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Config:
    x_dim = 30
    z_dim = 6
    h_dim = 64
    n_classes = 3
    batch_size = 16
    epochs = 2
    lr = 1e-3
    alpha = 0.5


def log_gaussian_prob(x, mu, var):
    """log N(x; mu, diag(var)) summed over the last dimension."""
    d = x.shape[1]
    const = -0.5 * d * np.log(2 * np.pi)
    log_det = -0.5 * torch.log(var).sum(dim=1)  # fixed: GG502
    quad = -0.5 * ((x - mu) ** 2 / var).sum(dim=1)
    return const + torch.as_tensor(log_det) + quad


def log_standard_gaussian(x):
    return -0.5 * (x ** 2).sum(dim=1) - 0.5 * x.shape[1] * math.log(2 * math.pi)


class Encoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(cfg.x_dim + cfg.n_classes, cfg.h_dim), nn.Softplus())
        self.mu = nn.Linear(cfg.h_dim, cfg.z_dim)
        self.log_var = nn.Linear(cfg.h_dim, cfg.z_dim)

    def forward(self, x, y_onehot):
        h = self.net(torch.cat([x, y_onehot], dim=1))
        mu, var = self.mu(h), torch.exp(self.log_var(h))
        z = mu + var.sqrt() * torch.randn_like(mu)
        return z, mu, var


class Decoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(cfg.z_dim + cfg.n_classes, cfg.h_dim), nn.Softplus(),
            nn.Linear(cfg.h_dim, cfg.x_dim),
        )

    def forward(self, z, y_onehot):
        return torch.sigmoid(self.net(torch.cat([z, y_onehot], dim=1)))


class SSVAE(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.encoder = Encoder(cfg)
        self.decoder = Decoder(cfg)
        self.classifier = nn.Sequential(nn.Linear(cfg.x_dim, cfg.h_dim), nn.ReLU(),
                                        nn.Linear(cfg.h_dim, cfg.n_classes))

    def elbo(self, x, y):
        y1h = F.one_hot(y, self.cfg.n_classes).float()
        z, mu, var = self.encoder(x, y1h)
        x_hat = self.decoder(z, y1h)
        log_px = -F.binary_cross_entropy(x_hat, x, reduction="none").sum(1)
        log_pz = log_standard_gaussian(z)
        log_q_z = log_gaussian_prob(z, mu, var)
        return log_px + log_pz - log_q_z


def train_epoch(model, loader, optimizer, cfg):
    model.train()
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        neg_elbo = -model.elbo(x, y).mean()
        clf = F.cross_entropy(model.classifier(x), y)
        loss = neg_elbo + cfg.alpha * clf
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


def main():
    cfg = Config()
    torch.manual_seed(1)
    x = torch.rand(64, cfg.x_dim)
    y = torch.randint(0, cfg.n_classes, (64,))
    loader = DataLoader(TensorDataset(x, y), batch_size=cfg.batch_size, shuffle=True)
    model = SSVAE(cfg)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    history = []
    for epoch in range(cfg.epochs):
        history.append(train_epoch(model, loader, optimizer, cfg))
        print(f"[epoch {epoch}] loss={history[-1]:.3f}")
    return history


if __name__ == "__main__":
    hist = main()
    assert all(np.isfinite(h) for h in hist)
    print("FIXED: ok")
