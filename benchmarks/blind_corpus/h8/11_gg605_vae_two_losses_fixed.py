"""GG605 (fixed) - gradients are cleared once, before both backward passes.

Originally `optimizer.zero_grad()` sat between the reconstruction backward and
`optimizer.step()`, discarding the reconstruction gradients, so the decoder never
trained.  Fix: clear gradients at the start of the iteration; both backward
passes now accumulate into the same step.

Modelled on: https://github.com/rll/deepul/issues/12
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

IMG = 28 * 28
LATENT = 8
EPOCHS = 2
BATCH = 32
LR = 1e-3
WARMUP_EPOCHS = 4


class VAE(nn.Module):
    def __init__(self, d_in=IMG, hidden=128, latent=LATENT):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, latent)
        self.logvar = nn.Linear(hidden, latent)
        self.dec = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, d_in))

    def encode(self, x):
        h = self.enc(x)
        return self.mu(h), self.logvar(h)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        return mu + std * torch.randn_like(std)

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = self.reparameterize(mu, logvar)
        return self.dec(z), mu, logvar


def kl_divergence(mu, logvar):
    return -0.5 * torch.mean(torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1))


def beta_for(epoch):
    return min(1.0, (epoch + 1) / WARMUP_EPOCHS)


def train(model, loader, optimizer, epoch):
    model.train()
    beta = beta_for(epoch)
    stats = {"recon": 0.0, "kl": 0.0}
    for batch_idx, (x,) in enumerate(loader):
        optimizer.zero_grad()  # fixed: GG605
        x = x.view(x.size(0), -1)
        logits, mu, logvar = model(x)
        recon = F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / x.size(0)
        kl = kl_divergence(mu, logvar)
        recon.backward(retain_graph=True)
        (beta * kl).backward()
        optimizer.step()
        stats["recon"] += recon.item()
        stats["kl"] += kl.item()
    n = batch_idx + 1
    print(f"epoch {epoch} beta={beta:.2f} recon={stats['recon'] / n:.2f} kl={stats['kl'] / n:.3f}")
    return stats


def main():
    images = (torch.rand(128, 1, 28, 28) > 0.7).float()
    loader = DataLoader(TensorDataset(images), batch_size=BATCH, shuffle=True)
    model = VAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    decoder_before = [p.detach().clone() for p in model.dec.parameters()]
    for epoch in range(EPOCHS):
        train(model, loader, optimizer, epoch)
    return model, decoder_before


def check_training():
    torch.manual_seed(0)
    model, decoder_before = main()
    changed = [not torch.equal(p.detach(), b) for p, b in zip(model.dec.parameters(), decoder_before)]
    assert any(changed), "decoder weights never changed: the reconstruction gradient was wiped before step()"


if __name__ == "__main__":
    check_training()
    print("FIXED: ok")
