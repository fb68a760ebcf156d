"""GG102 look-alike - .item()/float() everywhere, but only for logging.

Category: GG102 (look-alike, correct code).
A small VAE trainer builds a dict of loss tensors, converts a *copy* of it
to floats for the log and for ReduceLROnPlateau, and uses .item() in an
early-stopping test; backward() is always called on the tensor total.
Modelled on: none found (common VAE logging idiom)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


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
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.dec(z), mu, logvar


def vae_losses(recon, x, mu, logvar, beta):
    rec = F.mse_loss(recon, x, reduction="sum") / x.size(0)
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.size(0)
    return {"rec": rec, "kld": kld, "total": rec + beta * kld}


def log_metrics(step, losses):
    scalars = {k: v.item() for k, v in losses.items()}
    print(f"step {step}: " + " ".join(f"{k}={v:.3f}" for k, v in scalars.items()))
    return scalars


def train(model, loader, optimizer, scheduler, epochs=3, beta=0.5, patience=5):
    best, bad_epochs, step = float("inf"), 0, 0
    for epoch in range(epochs):
        epoch_total = 0.0
        for (x,) in loader:
            recon, mu, logvar = model(x)
            losses = vae_losses(recon, x, mu, logvar, beta)
            optimizer.zero_grad()
            losses["total"].backward()
            optimizer.step()
            scalars = log_metrics(step, losses)
            epoch_total += scalars["total"]
            step += 1
        scheduler.step(float(epoch_total))
        if epoch_total < best - 1e-4:
            best, bad_epochs = epoch_total, 0
        else:
            bad_epochs += 1
        if bad_epochs >= patience:
            break
    return best


def main():
    torch.manual_seed(0)
    model = VAE()
    first = model.dec[2].weight.detach().clone()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=1)
    loader = DataLoader(TensorDataset(torch.randn(48, 20)), batch_size=16, shuffle=True)
    best = train(model, loader, optimizer, scheduler)
    assert not torch.equal(first, model.dec[2].weight), "decoder should have been trained"
    print(f"best epoch total {best:.3f}")


if __name__ == "__main__":
    main()
    print("OK")
