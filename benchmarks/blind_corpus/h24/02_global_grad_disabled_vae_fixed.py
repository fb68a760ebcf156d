"""GG101 - backward() on a value computed while grad mode was switched off.

Mistake: a "sampling utilities" section at import time calls
torch.set_grad_enabled(False) globally (meant to speed up posterior sampling).
Every tensor built afterwards, including the VAE training loss, has no graph,
so loss.backward() raises
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
Fixed: the global switch is removed; only the sampling helper runs under @torch.no_grad().

Modelled on: https://github.com/scverse/scvi-tools/issues/214
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

# --------------------------------------------------------------------------
# posterior sampling helpers (originally lived in a separate inference module)
# --------------------------------------------------------------------------
@torch.no_grad()  # sampling never needs gradients, but only inside this helper
def sample_posterior(model, x, n_samples=5):
    mu, logvar = model.encode(x)
    std = torch.exp(0.5 * logvar)
    zs = [mu + std * torch.randn_like(std) for _ in range(n_samples)]
    return torch.stack(zs).mean(0)


# --------------------------------------------------------------------------
# model
# --------------------------------------------------------------------------
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


def elbo_loss(recon, x, mu, logvar):
    rec = F.mse_loss(recon, x, reduction="sum") / x.size(0)
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.size(0)
    return {"rec": rec, "kl": kl, "total": rec + kl}


class UnsupervisedTrainer:
    def __init__(self, model, loader, lr=1e-3, device="cpu"):
        self.model = model.to(device)
        self.loader = loader
        self.device = device
        self.opt = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.history = []

    def train_epoch(self):
        self.model.train()
        for (x,) in self.loader:
            x = x.to(self.device)
            recon, mu, logvar = self.model(x)
            losses = elbo_loss(recon, x, mu, logvar)
            self.opt.zero_grad()
            losses["total"].backward()  # fixed: GG101
            self.opt.step()
            self.history.append({k: v.item() for k, v in losses.items()})

    def fit(self, n_epochs):
        for epoch in range(n_epochs):
            self.train_epoch()
            print(f"epoch {epoch} total={self.history[-1]['total']:.3f}")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--n-cells", type=int, default=64)
    p.add_argument("--n-genes", type=int, default=20)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=16)
    return p.parse_args([])


def main():
    args = parse_args()
    torch.manual_seed(0)
    counts = torch.rand(args.n_cells, args.n_genes)
    loader = DataLoader(TensorDataset(counts), batch_size=args.batch_size, shuffle=True)
    trainer = UnsupervisedTrainer(GeneVAE(args.n_genes), loader)
    trainer.fit(args.epochs)
    latent = sample_posterior(trainer.model, counts[:8])
    print("latent", tuple(latent.shape))


if __name__ == "__main__":
    main()
    print("FIXED: ok")
