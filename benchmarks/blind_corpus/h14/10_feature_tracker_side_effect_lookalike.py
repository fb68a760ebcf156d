"""GG602 look-alike - a module called in forward() for its side effect only.

An autoencoder's forward() calls self.latent_stats(z) and ignores the
return value on purpose: the tracker is an nn.Module that updates running
mean/variance buffers of the latent code (used later for sampling), just like
BatchNorm's running statistics.  The result is not needed, so discarding it is
correct.  Runs cleanly.

Modelled on: none found (correct counterpart of the discarded-dropout bug)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = {"in_dim": 20, "latent": 4, "momentum": 0.1, "epochs": 2, "lr": 1e-3}


class RunningStats(nn.Module):
    def __init__(self, dim, momentum):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("var", torch.ones(dim))
        self.register_buffer("count", torch.zeros((), dtype=torch.long))

    @torch.no_grad()
    def forward(self, z):
        if self.training:
            m = self.momentum
            self.mean.mul_(1 - m).add_(m * z.mean(0))
            self.var.mul_(1 - m).add_(m * z.var(0, unbiased=False))
            self.count += 1
        return self.mean, self.var


class AutoEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(cfg["in_dim"], 16), nn.ReLU(), nn.Linear(16, cfg["latent"]))
        self.decoder = nn.Sequential(nn.Linear(cfg["latent"], 16), nn.ReLU(), nn.Linear(16, cfg["in_dim"]))
        self.latent_stats = RunningStats(cfg["latent"], cfg["momentum"])

    def forward(self, x):
        z = self.encoder(x)
        self.latent_stats(z)
        return self.decoder(z), z

    @torch.no_grad()
    def sample(self, n):
        mean, var = self.latent_stats.mean, self.latent_stats.var
        z = mean + var.sqrt() * torch.randn(n, mean.numel())
        return self.decoder(z)


def train(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for (x,) in loader:
            recon, _ = model(x)
            loss = F.mse_loss(recon, x)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * x.size(0)
        print(f"epoch {epoch}: mse {total / len(loader.dataset):.4f}")


def main():
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(torch.randn(64, CFG["in_dim"])), batch_size=16, shuffle=True)
    model = AutoEncoder(CFG)
    optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    train(model, loader, optimizer, CFG["epochs"])
    assert model.latent_stats.count.item() == 2 * len(loader)
    assert not torch.equal(model.latent_stats.mean, torch.zeros(CFG["latent"]))
    print("samples:", tuple(model.sample(3).shape))


if __name__ == "__main__":
    main()
    print("OK")
