"""GG103 - backward() on a value cut from the graph by .detach().

A VAE's forward returns a dict. A helper `collect_outputs` detaches every entry
"to be safe for logging", and the ELBO is then computed from that collected
dict, so recon, mu and logvar have no history and neither does the loss.
torch raises: RuntimeError: element 0 of tensors does not require grad and does
not have a grad_fn

Modelled on: https://github.com/pytorch/pytorch/issues/92586
"""
import os
import tempfile
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


@dataclass
class Config:
    x_dim: int = 32
    z_dim: int = 4
    hidden: int = 64
    batch_size: int = 16
    epochs: int = 2
    lr: float = 2e-3
    beta: float = 1.0
    device: str = "cpu"


class VAE(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(cfg.x_dim, cfg.hidden), nn.ReLU())
        self.mu = nn.Linear(cfg.hidden, cfg.z_dim)
        self.logvar = nn.Linear(cfg.hidden, cfg.z_dim)
        self.dec = nn.Sequential(
            nn.Linear(cfg.z_dim, cfg.hidden), nn.ReLU(),
            nn.Linear(cfg.hidden, cfg.x_dim),
        )

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        return mu + std * torch.randn_like(std)

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = self.reparameterize(mu, logvar)
        return {"recon": self.dec(z), "mu": mu, "logvar": logvar, "z": z}


def collect_outputs(outputs):
    """Move everything to a uniform, log-friendly form."""
    return {k: v.detach().to(torch.float32) for k, v in outputs.items()}


def elbo_loss(out, x, beta):
    recon = F.mse_loss(out["recon"], x, reduction="sum") / x.shape[0]
    kld = -0.5 * torch.mean(torch.sum(1 + out["logvar"] - out["mu"] ** 2 - out["logvar"].exp(), dim=1))
    return recon + beta * kld, {"recon": recon.item(), "kld": kld.item()}


def train(model, loader, optimizer, cfg):
    model.train()
    for epoch in range(cfg.epochs):
        for step, (x,) in enumerate(loader):
            x = x.to(cfg.device)
            out = collect_outputs(model(x))
            loss, parts = elbo_loss(out, x, cfg.beta)
            optimizer.zero_grad()
            loss.backward()  # bug: GG103
            optimizer.step()
            if step == 0:
                print(f"epoch {epoch}: loss {loss.item():.3f} {parts}")


def main():
    cfg = Config()
    torch.manual_seed(0)
    data = torch.randn(64, cfg.x_dim)
    loader = DataLoader(TensorDataset(data), batch_size=cfg.batch_size, shuffle=True)
    model = VAE(cfg).to(cfg.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    train(model, loader, optimizer, cfg)
    with tempfile.TemporaryDirectory() as tmp:
        torch.save(model.state_dict(), os.path.join(tmp, "vae.pt"))


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
