"""GG101 look-alike - grad mode switched off, but only around evaluation.

The script toggles torch.set_grad_enabled(...) per phase, the way many
train/val loops do, and has a @torch.no_grad() sampling helper.  The training
loss is always built while grad mode is on, so backward() is valid.

Modelled on: https://github.com/scverse/scvi-tools/issues/214 (the corrected pattern)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"n_cells": 64, "n_genes": 20, "latent": 4, "epochs": 2, "lr": 1e-3}


class GeneVAE(nn.Module):
    def __init__(self, n_genes, n_hidden=32, n_latent=4):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(n_genes, n_hidden), nn.ReLU())
        self.mu = nn.Linear(n_hidden, n_latent)
        self.logvar = nn.Linear(n_hidden, n_latent)
        self.dec = nn.Sequential(nn.Linear(n_latent, n_hidden), nn.ReLU(),
                                 nn.Linear(n_hidden, n_genes))

    def encode(self, x):
        h = self.enc(x)
        return self.mu(h), self.logvar(h)

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = mu + torch.exp(0.5 * logvar) * torch.randn_like(mu)
        return self.dec(z), mu, logvar


@torch.no_grad()
def sample_posterior(model, x, n_samples=5):
    mu, logvar = model.encode(x)
    std = torch.exp(0.5 * logvar)
    return torch.stack([mu + std * torch.randn_like(std) for _ in range(n_samples)]).mean(0)


def elbo(recon, x, mu, logvar):
    rec = F.mse_loss(recon, x, reduction="sum") / x.size(0)
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.size(0)
    return rec + kl


def run_phase(model, loader, opt, phase):
    model.train(phase == "train")
    total = 0.0
    for (x,) in loader:
        with torch.set_grad_enabled(phase == "train"):
            recon, mu, logvar = model(x)
            loss = elbo(recon, x, mu, logvar)
        if phase == "train":
            opt.zero_grad()
            loss.backward()
            opt.step()
        total += loss.item()
    return total / len(loader)


def main():
    torch.manual_seed(0)
    data = torch.rand(CONFIG["n_cells"], CONFIG["n_genes"])
    loaders = {
        "train": DataLoader(TensorDataset(data[:48]), batch_size=16, shuffle=True),
        "val": DataLoader(TensorDataset(data[48:]), batch_size=16),
    }
    model = GeneVAE(CONFIG["n_genes"], n_latent=CONFIG["latent"])
    opt = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])
    before = model.dec[2].weight.detach().clone()
    for epoch in range(CONFIG["epochs"]):
        stats = {ph: run_phase(model, loaders[ph], opt, ph) for ph in ("train", "val")}
        print(f"epoch {epoch} " + " ".join(f"{k}={v:.3f}" for k, v in stats.items()))
    z = sample_posterior(model, data[:8])
    assert not z.requires_grad
    assert not torch.equal(before, model.dec[2].weight)


if __name__ == "__main__":
    main()
    print("OK")
