"""GG403 - .grad of a non-leaf tensor read (it is None without retain_grad()).

FIXED version. Original mistake: a VAE trainer monitors how much gradient reaches the latent code.  The
model keeps the sampled ``z`` on ``self.last_z`` during forward and the
trainer's ``log_metrics`` reads ``model.last_z.grad`` after ``backward()``.
``z`` is computed from the encoder (a non-leaf), and nobody called
``retain_grad()`` on it, so its ``.grad`` stays None.

Effect / error (buggy version): UserWarning about accessing .grad of a non-leaf Tensor, then
AttributeError: 'NoneType' object has no attribute 'norm'.
Fix: call ``z.retain_grad()`` in forward so backward fills ``z.grad``.

Modelled on: https://github.com/pytorch/pytorch/issues/134398
"""
import os
import tempfile
import warnings
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = {"in_dim": 24, "hidden": 32, "latent": 4, "epochs": 2, "batch": 8,
       "lr": 1e-3, "beta": 0.5, "ckpt_dir": tempfile.mkdtemp()}


class VAE(nn.Module):
    def __init__(self, in_dim, hidden, latent):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, latent)
        self.logvar = nn.Linear(hidden, latent)
        self.dec = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, in_dim))
        self.last_z = None

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        return mu + std * torch.randn_like(std)

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = self.reparameterize(mu, logvar)
        z.retain_grad()
        self.last_z = z
        return self.dec(z), mu, logvar


def vae_loss(recon, x, mu, logvar, beta):
    rec = F.mse_loss(recon, x, reduction="sum") / x.size(0)
    kld = -0.5 * torch.mean(torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1))
    return {"rec": rec, "kld": kld, "total": rec + beta * kld}


class VAETrainer:
    def __init__(self, model, loader, cfg):
        self.model, self.loader, self.cfg = model, loader, cfg
        self.opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
        self.metrics = defaultdict(list)

    def log_metrics(self, losses):
        for k, v in losses.items():
            self.metrics[k].append(v.item())
        self.metrics["z_grad_norm"].append(self.model.last_z.grad.norm().item())  # fixed: GG403

    def train_epoch(self, epoch):
        self.model.train()
        for (x,) in self.loader:
            self.opt.zero_grad()
            recon, mu, logvar = self.model(x)
            losses = vae_loss(recon, x, mu, logvar, self.cfg["beta"])
            losses["total"].backward()
            self.log_metrics(losses)
            self.opt.step()
        zg = self.metrics["z_grad_norm"][-1]
        print(f"epoch {epoch} total={self.metrics['total'][-1]:.3f} |dL/dz|={zg:.4f}")
        torch.save(self.model.state_dict(), os.path.join(self.cfg["ckpt_dir"], f"vae_{epoch}.pt"))


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, CFG["in_dim"]))
    loader = DataLoader(data, batch_size=CFG["batch"], shuffle=True)
    trainer = VAETrainer(VAE(CFG["in_dim"], CFG["hidden"], CFG["latent"]), loader, CFG)
    for epoch in range(CFG["epochs"]):
        trainer.train_epoch(epoch)


if __name__ == "__main__":
    warnings.simplefilter("error", UserWarning)
    main()
    print("FIXED: ok")
