"""GG205 (buggy): VAE optimizer steps before the discriminator loss reuses its graph.

Mistake: FactorVAE-style solver. D_z = D(z) is computed from the encoder's sample and
used in the VAE's total-correlation term. The VAE update does
vae_loss.backward(retain_graph=True) and then optim_VAE.step(), which updates the
encoder weights in place. The discriminator loss then reuses D_z, whose retained graph
reaches back into the encoder and still needs the old encoder weights.
Error raised by torch: RuntimeError: one of the variables needed for gradient
computation has been modified by an inplace operation: [...] is at version N; expected
version N-1 instead. ...
Modelled on: https://github.com/1Konny/FactorVAE/issues/15
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class VAE(nn.Module):
    def __init__(self, x_dim=20, z_dim=4):
        super().__init__()
        self.encode = nn.Sequential(nn.Linear(x_dim, 32), nn.ReLU(), nn.Linear(32, 2 * z_dim))
        self.decode = nn.Sequential(nn.Linear(z_dim, 32), nn.ReLU(), nn.Linear(32, x_dim))
        self.z_dim = z_dim

    def forward(self, x, no_dec=False):
        stats = self.encode(x)
        mu, logvar = stats[:, : self.z_dim], stats[:, self.z_dim:]
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        if no_dec:
            return z.squeeze()
        return self.decode(z), mu, logvar, z.squeeze()


class Discriminator(nn.Module):
    def __init__(self, z_dim=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, 64), nn.LeakyReLU(0.2), nn.Linear(64, 2))

    def forward(self, z):
        return self.net(z)


def permute_dims(z):
    b, d = z.shape
    return torch.stack([z[torch.randperm(b), j] for j in range(d)], dim=1)


def kl_divergence(mu, logvar):
    return -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(1).mean()


class Solver:
    def __init__(self, gamma=6.4, lr_vae=1e-3, lr_D=1e-4):
        self.VAE, self.D = VAE(), Discriminator()
        self.gamma = gamma
        self.optim_VAE = torch.optim.Adam(self.VAE.parameters(), lr=lr_vae, betas=(0.9, 0.999))
        self.optim_D = torch.optim.Adam(self.D.parameters(), lr=lr_D, betas=(0.5, 0.9))
        self.global_iter = 0

    def train_iter(self, x_true1, x_true2):
        ones = torch.ones(x_true1.size(0), dtype=torch.long)
        zeros = torch.zeros(x_true1.size(0), dtype=torch.long)

        x_recon, mu, logvar, z = self.VAE(x_true1)
        vae_recon_loss = F.mse_loss(x_recon, x_true1, reduction="sum") / x_true1.size(0)
        vae_kld = kl_divergence(mu, logvar)
        D_z = self.D(z)
        vae_tc_loss = (D_z[:, :1] - D_z[:, 1:]).mean()
        vae_loss = vae_recon_loss + vae_kld + self.gamma * vae_tc_loss

        self.optim_VAE.zero_grad()
        vae_loss.backward(retain_graph=True)
        self.optim_VAE.step()  # bug: GG205

        z_prime = self.VAE(x_true2, no_dec=True)
        z_pperm = permute_dims(z_prime).detach()
        D_z_pperm = self.D(z_pperm)
        D_tc_loss = 0.5 * (F.cross_entropy(D_z, zeros) + F.cross_entropy(D_z_pperm, ones))

        self.optim_D.zero_grad()
        D_tc_loss.backward()
        self.optim_D.step()
        self.global_iter += 1
        return {"vae_recon": vae_recon_loss.item(), "vae_tc": vae_tc_loss.item(), "D_tc": D_tc_loss.item()}

    def train(self, loader, max_iter=4):
        for x1, x2 in loader:
            logs = self.train_iter(x1, x2)
            print(f"[{self.global_iter}] " + " ".join(f"{k}:{v:.3f}" for k, v in logs.items()))
            if self.global_iter >= max_iter:
                break


def main():
    torch.manual_seed(0)
    data = torch.randn(64, 20)
    loader = DataLoader(TensorDataset(data, data.flip(0)), batch_size=16, shuffle=True)
    Solver().train(loader)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
