"""GG502 look-alike - .numpy() on model outputs, but inside a @torch.no_grad() function.

After training a small VAE, encode_dataset() runs the encoder over the whole
loader and converts the latent means to numpy for a k-means style summary.
The function is decorated with @torch.no_grad(), so nothing it computes
requires grad and .numpy() is legal.  The training loop itself logs with
.item() only.  A checker that flags any .numpy() on a model output would be wrong.

Modelled on: https://github.com/GuHY777/SS-VAE-pytorch/issues/1 (correct counterpart)
"""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

X_DIM, Z_DIM, H_DIM = 24, 4, 48
EPOCHS, LR, BATCH = 2, 2e-3, 16


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(X_DIM, H_DIM), nn.ReLU())
        self.mu = nn.Linear(H_DIM, Z_DIM)
        self.logvar = nn.Linear(H_DIM, Z_DIM)
        self.dec = nn.Sequential(nn.Linear(Z_DIM, H_DIM), nn.ReLU(), nn.Linear(H_DIM, X_DIM))

    def encode(self, x):
        h = self.enc(x)
        return self.mu(h), self.logvar(h)

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = mu + torch.exp(0.5 * logvar) * torch.randn_like(mu)
        return torch.sigmoid(self.dec(z)), mu, logvar


def vae_loss(x_hat, x, mu, logvar):
    rec = F.binary_cross_entropy(x_hat, x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return (rec + kld) / x.size(0)


def train(model, loader, optimizer):
    model.train()
    for epoch in range(EPOCHS):
        total = 0.0
        for (x,) in loader:
            optimizer.zero_grad()
            x_hat, mu, logvar = model(x)
            loss = vae_loss(x_hat, x, mu, logvar)
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: {total / len(loader):.3f}")


@torch.no_grad()
def encode_dataset(model, loader):
    model.eval()
    codes = []
    for (x,) in loader:
        mu, _ = model.encode(x)
        codes.append(mu.numpy())
    return np.concatenate(codes, axis=0)


def kmeans(codes, k=3, iters=10, seed=0):
    rng = np.random.default_rng(seed)
    centers = codes[rng.choice(len(codes), k, replace=False)]
    for _ in range(iters):
        assign = ((codes[:, None, :] - centers[None]) ** 2).sum(-1).argmin(1)
        for j in range(k):
            if (assign == j).any():
                centers[j] = codes[assign == j].mean(0)
    return assign, centers


def main():
    torch.manual_seed(0)
    data = torch.rand(80, X_DIM)
    loader = DataLoader(TensorDataset(data), batch_size=BATCH, shuffle=True)
    model = VAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    train(model, loader, optimizer)
    codes = encode_dataset(model, DataLoader(TensorDataset(data), batch_size=BATCH))
    assign, centers = kmeans(codes)
    with tempfile.TemporaryDirectory() as tmp:
        np.save(os.path.join(tmp, "latents.npy"), codes)
        torch.save(model.state_dict(), os.path.join(tmp, "vae.pt"))
    return codes, assign


if __name__ == "__main__":
    codes, assign = main()
    assert codes.shape == (80, Z_DIM) and assign.shape == (80,)
    print("OK")
