"""GG502 look-alike - .numpy() calls on tensors that do not require grad.

Correct code: a small VAE logs its latent codes and reconstructions with numpy. Every
`.numpy()` is on a tensor that carries no graph: produced under torch.no_grad(),
detached when stored in the metrics dict, or an integer label tensor. Nothing raises.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

HPARAMS = {"x_dim": 30, "z_dim": 4, "hidden": 64, "lr": 2e-3, "epochs": 3, "batch_size": 32, "beta": 0.5}


class VAE(nn.Module):
    def __init__(self, x_dim, z_dim, hidden):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(x_dim, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, z_dim)
        self.logvar = nn.Linear(hidden, z_dim)
        self.dec = nn.Sequential(nn.Linear(z_dim, hidden), nn.ReLU(), nn.Linear(hidden, x_dim))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


def vae_loss(recon, x, mu, logvar, beta):
    rec = F.mse_loss(recon, x, reduction="sum") / x.shape[0]
    kld = -0.5 * torch.mean(torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1))
    return rec + beta * kld, {"rec": rec.detach(), "kld": kld.detach()}


def log_metrics(epoch, parts):
    arr = np.array([parts["rec"].numpy(), parts["kld"].numpy()])
    print(f"epoch {epoch}: rec={arr[0]:.3f} kld={arr[1]:.3f}")


def train(model, loader, optimizer, hp):
    for epoch in range(hp["epochs"]):
        model.train()
        for x, _ in loader:
            optimizer.zero_grad()
            recon, mu, logvar = model(x)
            loss, parts = vae_loss(recon, x, mu, logvar, hp["beta"])
            loss.backward()
            optimizer.step()
        log_metrics(epoch, parts)


@torch.no_grad()
def collect_latents(model, loader):
    model.eval()
    codes, labels = [], []
    for x, y in loader:
        _, mu, _ = model(x)
        codes.append(mu.numpy())          # computed under no_grad
        labels.append(y.numpy())          # integer labels
    return np.concatenate(codes), np.concatenate(labels)


def main():
    torch.manual_seed(3)
    hp = HPARAMS
    x = torch.randn(128, hp["x_dim"])
    y = torch.randint(0, 3, (128,))
    loader = DataLoader(TensorDataset(x, y), batch_size=hp["batch_size"], shuffle=True)
    model = VAE(hp["x_dim"], hp["z_dim"], hp["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=hp["lr"])
    train(model, loader, opt, hp)
    codes, labels = collect_latents(model, loader)
    centroids = np.stack([codes[labels == k].mean(0) for k in range(3)])
    assert centroids.shape == (3, hp["z_dim"])


if __name__ == "__main__":
    main()
    print("OK")
