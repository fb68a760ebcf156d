"""GG205: optimizer.step() edits weights a retained graph saved, then backward again.

Mistake: FactorVAE-style training.  The VAE loss contains a total-correlation
term computed by the discriminator on ``D_z = D(z)``.  The solver calls
``vae_loss.backward(retain_graph=True)`` and immediately ``optim_VAE.step()``;
afterwards the discriminator loss reuses ``D_z`` and calls ``backward()``.  That
second backward walks through the retained graph of the encoder, whose weights
the VAE optimizer step has just modified in place.
torch raises: RuntimeError: one of the variables needed for gradient computation
has been modified by an inplace operation: [torch.FloatTensor [...]] ... is at
version 2; expected version 1 instead. ...
Modelled on: https://github.com/1Konny/FactorVAE/issues/15
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

DEFAULTS = {
    "z_dim": 6,
    "gamma": 6.4,
    "lr_VAE": 1e-4,
    "lr_D": 1e-4,
    "batch_size": 16,
    "max_iter": 4,
    "x_dim": 64,
}


class VAE(nn.Module):
    def __init__(self, x_dim, z_dim, hidden=64):
        super().__init__()
        self.encode = nn.Sequential(nn.Linear(x_dim, hidden), nn.ReLU(), nn.Linear(hidden, 2 * z_dim))
        self.decode = nn.Sequential(nn.Linear(z_dim, hidden), nn.ReLU(), nn.Linear(hidden, x_dim))
        self.z_dim = z_dim

    def reparametrize(self, mu, logvar):
        return mu + torch.randn_like(mu) * (0.5 * logvar).exp()

    def forward(self, x, no_dec=False):
        stats = self.encode(x)
        mu, logvar = stats[:, :self.z_dim], stats[:, self.z_dim:]
        z = self.reparametrize(mu, logvar)
        if no_dec:
            return z.squeeze()
        return self.decode(z), mu, logvar, z.squeeze()


class Discriminator(nn.Module):
    def __init__(self, z_dim, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, hidden), nn.LeakyReLU(0.2),
                                 nn.Linear(hidden, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, 2))

    def forward(self, z):
        return self.net(z)


def recon_loss(x, x_recon):
    return F.binary_cross_entropy_with_logits(x_recon, x, reduction="sum").div(x.size(0))


def kl_divergence(mu, logvar):
    return 0.5 * (-1 - logvar + mu.pow(2) + logvar.exp()).sum(1).mean()


def permute_dims(z):
    b, d = z.size()
    return torch.stack([z[torch.randperm(b), j] for j in range(d)], dim=1)


class Solver:
    def __init__(self, cfg, loader):
        self.cfg = cfg
        self.loader = loader
        self.VAE = VAE(cfg["x_dim"], cfg["z_dim"])
        self.D = Discriminator(cfg["z_dim"])
        self.optim_VAE = torch.optim.Adam(self.VAE.parameters(), lr=cfg["lr_VAE"], betas=(0.9, 0.999))
        self.optim_D = torch.optim.Adam(self.D.parameters(), lr=cfg["lr_D"], betas=(0.5, 0.9))
        self.global_iter = 0

    def train(self):
        ones = torch.ones(self.cfg["batch_size"], dtype=torch.long)
        zeros = torch.zeros(self.cfg["batch_size"], dtype=torch.long)
        while self.global_iter < self.cfg["max_iter"]:
            for x_true1, x_true2 in self.loader:
                self.global_iter += 1
                x_recon, mu, logvar, z = self.VAE(x_true1)
                vae_recon_loss = recon_loss(x_true1, x_recon)
                vae_kld = kl_divergence(mu, logvar)
                D_z = self.D(z)
                vae_tc_loss = (D_z[:, :1] - D_z[:, 1:]).mean()
                vae_loss = vae_recon_loss + vae_kld + self.cfg["gamma"] * vae_tc_loss

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
                print(f"[{self.global_iter}] vae_recon {vae_recon_loss.item():.2f} "
                      f"kld {vae_kld.item():.3f} tc {vae_tc_loss.item():.3f} D_tc {D_tc_loss.item():.3f}")
                if self.global_iter >= self.cfg["max_iter"]:
                    break


def main():
    torch.manual_seed(0)
    cfg = DEFAULTS
    data = (torch.rand(128, cfg["x_dim"]) > 0.5).float()
    shuffled = data[torch.randperm(len(data))]
    loader = DataLoader(TensorDataset(data, shuffled), batch_size=cfg["batch_size"], shuffle=True, drop_last=True)
    Solver(cfg, loader).train()


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print("BUGGY:", str(err).splitlines()[0])
    else:
        raise SystemExit("NO BUG")
