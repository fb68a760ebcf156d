"""GG102 - backward() on a loss that was turned into a Python float.

A VAE trainer: vae_loss() returns a dict of loss tensors, and the trainer runs
it through to_scalars() (float(v) for every entry) so the history/logger gets
plain numbers. The same converted dict is then used for the backward pass, so
losses["total"] is a float, not a tensor. Python raises:
    AttributeError: 'float' object has no attribute 'backward'

Modelled on: https://deepinout.com/pytorch/pytorch-questions/75_pytorch_runtime_error_element_0_of_tensors_does_not_require_grad_and_does_not_have_a_grad_fn.html
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

HPARAMS = dict(in_dim=20, hidden=32, latent=4, beta=0.5, lr=1e-3, batch_size=16, epochs=2)


class VAE(nn.Module):
    def __init__(self, in_dim, hidden, latent):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, latent)
        self.logvar = nn.Linear(hidden, latent)
        self.dec = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, in_dim))

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        return mu + std * torch.randn_like(std)

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        return self.dec(self.reparameterize(mu, logvar)), mu, logvar


def vae_loss(recon, x, mu, logvar, beta):
    rec = F.mse_loss(recon, x, reduction="sum") / x.size(0)
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.size(0)
    return {"rec": rec, "kld": kld, "total": rec + beta * kld}


def to_scalars(d):
    return {k: float(v) for k, v in d.items()}


class Trainer:
    def __init__(self, model, optimizer, hp, ckpt_dir):
        self.model, self.optimizer, self.hp = model, optimizer, hp
        self.ckpt_dir = ckpt_dir
        self.history = []

    def train_epoch(self, loader):
        self.model.train()
        for (x,) in loader:
            recon, mu, logvar = self.model(x)
            losses = to_scalars(vae_loss(recon, x, mu, logvar, self.hp["beta"]))
            self.history.append(losses)
            self.optimizer.zero_grad()
            losses["total"].backward()  # bug: GG102
            self.optimizer.step()
        return self.history[-1]

    def save(self, epoch):
        path = os.path.join(self.ckpt_dir, f"vae_{epoch}.pt")
        torch.save({"model": self.model.state_dict(), "epoch": epoch}, path)
        return path

    def fit(self, loader):
        for epoch in range(self.hp["epochs"]):
            last = self.train_epoch(loader)
            print(f"epoch {epoch} rec={last['rec']:.3f} kld={last['kld']:.3f}")
            self.save(epoch)


def main():
    torch.manual_seed(0)
    hp = HPARAMS
    data = torch.randn(64, hp["in_dim"])
    loader = DataLoader(TensorDataset(data), batch_size=hp["batch_size"], shuffle=True)
    model = VAE(hp["in_dim"], hp["hidden"], hp["latent"])
    optimizer = torch.optim.Adam(model.parameters(), lr=hp["lr"])
    with tempfile.TemporaryDirectory() as tmp:
        Trainer(model, optimizer, hp, tmp).fit(loader)


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, AttributeError) as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
