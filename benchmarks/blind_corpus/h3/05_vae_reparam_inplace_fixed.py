"""GG302 - fixed version.

The reparameterisation is written out of place (mu + eps * std), so the exp()
output that autograd saved is not modified.
"""
import os
import sys
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def reparameterize(mu, logvar):
    std = torch.exp(0.5 * logvar)
    eps = torch.randn_like(std)
    z = mu + eps * std  # fixed: GG302
    return z


class VAE(nn.Module):
    def __init__(self, d_in=20, d_h=32, d_z=4):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d_in, d_h), nn.ReLU())
        self.mu = nn.Linear(d_h, d_z)
        self.logvar = nn.Linear(d_h, d_z)
        self.dec = nn.Sequential(nn.Linear(d_z, d_h), nn.ReLU(), nn.Linear(d_h, d_in))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = reparameterize(mu, logvar)
        return self.dec(z), mu, logvar


def vae_loss(recon, x, mu, logvar, beta=1.0):
    rec = F.mse_loss(recon, x, reduction="sum") / x.size(0)
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.size(0)
    return {"rec": rec, "kld": kld, "total": rec + beta * kld}


def train(model, loader, optimizer, epochs, ckpt_dir):
    for epoch in range(epochs):
        for i, (xb,) in enumerate(loader):
            recon, mu, logvar = model(xb)
            losses = vae_loss(recon, xb, mu, logvar)
            optimizer.zero_grad()
            losses["total"].backward()
            optimizer.step()
        print(f"epoch {epoch}: " + ", ".join(f"{k}={v.item():.3f}" for k, v in losses.items()))
        torch.save(model.state_dict(), os.path.join(ckpt_dir, f"vae_{epoch}.pt"))


def main():
    torch.manual_seed(0)
    data = torch.randn(64, 20)
    loader = DataLoader(TensorDataset(data), batch_size=16, shuffle=True)
    model = VAE()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    with tempfile.TemporaryDirectory() as tmp:
        train(model, loader, opt, epochs=2, ckpt_dir=tmp)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
