"""Category GG204 look-alike - evaluation loop that collects outputs, gradient-free.

A small VAE on flattened images. evaluate() loops over the validation loader with
no `with torch.no_grad():` block in sight and appends every reconstruction to a
list, but the whole function is decorated with @torch.no_grad(), so no graph is
built and the stored tensors carry no history. Expected: runs cleanly.

Modelled on: none found
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
LATENT, HIDDEN, PIXELS = 4, 32, 64


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(PIXELS, HIDDEN)
        self.mu = nn.Linear(HIDDEN, LATENT)
        self.logvar = nn.Linear(HIDDEN, LATENT)
        self.dec1 = nn.Linear(LATENT, HIDDEN)
        self.dec2 = nn.Linear(HIDDEN, PIXELS)

    def forward(self, x):
        h = F.relu(self.enc(x))
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return torch.sigmoid(self.dec2(F.relu(self.dec1(z)))), mu, logvar


def vae_loss(recon, x, mu, logvar):
    bce = F.binary_cross_entropy(recon, x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return (bce + kld) / x.size(0)


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    recons, total = [], 0.0
    for (x,) in loader:
        x = x.to(device)
        recon, mu, logvar = model(x)
        total += vae_loss(recon, x, mu, logvar).item()
        recons.append(recon)
    return total / len(loader), recons


def main():
    torch.manual_seed(0)
    data = torch.rand(64, PIXELS)
    train_loader = DataLoader(TensorDataset(data[:48]), batch_size=16, shuffle=True)
    val_loader = DataLoader(TensorDataset(data[48:]), batch_size=8)
    model = VAE().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(2):
        model.train()
        for (x,) in train_loader:
            recon, mu, logvar = model(x.to(device))
            loss = vae_loss(recon, x, mu, logvar)
            opt.zero_grad()
            loss.backward()
            opt.step()
        val_loss, recons = evaluate(model, val_loader)
        print(f"epoch {epoch}: val {val_loss:.3f}")
    assert all(not r.requires_grad for r in recons)


if __name__ == "__main__":
    main()
    print("OK")
