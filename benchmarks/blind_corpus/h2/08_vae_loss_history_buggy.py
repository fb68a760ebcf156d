"""GG203: VAE trainer appends its loss tensors to a history list every step.

Category GG203. ``VAETrainer.train_step`` returns a dict of loss terms (total, recon, kl)
and ``_log`` appends each value to ``self.history`` so that curves can be plotted later.
The values are the live loss tensors, so every list entry pins its step's entire graph,
encoder and decoder activations included, for the lifetime of the trainer.
Silent effect: no error; memory grows step after step. We assert that the stored history
entries still carry a grad_fn after training.
"""
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class VAE(nn.Module):
    def __init__(self, d_in=16, d_hidden=32, d_latent=4):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU())
        self.mu = nn.Linear(d_hidden, d_latent)
        self.logvar = nn.Linear(d_hidden, d_latent)
        self.dec = nn.Sequential(nn.Linear(d_latent, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_in))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


def vae_losses(recon, x, mu, logvar, beta):
    rec = F.mse_loss(recon, x, reduction="sum") / x.size(0)
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.size(0)
    return {"loss": rec + beta * kl, "recon": rec, "kl": kl}


class VAETrainer:
    def __init__(self, model, lr=1e-3, beta=1.0):
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.beta = beta
        self.history = defaultdict(list)

    def _log(self, losses):
        for name, value in losses.items():
            self.history[name].append(value)  # bug: GG203

    def train_step(self, x):
        recon, mu, logvar = self.model(x)
        losses = vae_losses(recon, x, mu, logvar, self.beta)
        self.opt.zero_grad()
        losses["loss"].backward()
        self.opt.step()
        return losses

    def fit(self, loader, epochs):
        self.model.train()
        for epoch in range(epochs):
            for (x,) in loader:
                self._log(self.train_step(x))
            last = {k: float(v[-1]) for k, v in self.history.items()}
            print(f"epoch {epoch}: " + ", ".join(f"{k} {v:.2f}" for k, v in last.items()))
        return self.history


def main():
    torch.manual_seed(6)
    data = torch.randn(96, 16)
    loader = DataLoader(TensorDataset(data), batch_size=12, shuffle=True)
    trainer = VAETrainer(VAE(), beta=0.5)
    return trainer.fit(loader, epochs=2)


if __name__ == "__main__":
    history = main()
    live = [v for v in history["recon"] if torch.is_tensor(v) and v.grad_fn is not None]
    if live:
        print(f"BUGGY: {len(live)} of {len(history['recon'])} logged recon losses still hold their graph")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
