"""GG102 - VAE loss rebuilt from .item() values before backward().

The loss function returns a dict of terms already turned into Python numbers (handy for
logging), and the training step re-wraps their weighted sum with torch.tensor(...).
The new tensor has no history, so `total.backward()` fails with:
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class VAE(nn.Module):
    def __init__(self, in_dim=20, hidden=32, latent=4):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, latent)
        self.logvar = nn.Linear(hidden, latent)
        self.dec = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, in_dim))

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        return mu + std * torch.randn_like(std)

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = self.reparameterize(mu, logvar)
        return torch.sigmoid(self.dec(z)), mu, logvar


def vae_loss_terms(recon, x, mu, logvar):
    bce = F.binary_cross_entropy(recon, x, reduction="sum") / x.size(0)
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.size(0)
    return {"recon": bce.item(), "kl": kld.item()}


class VAETrainer:
    def __init__(self, model, lr=1e-3, beta=0.5):
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.beta = beta
        self.log = []

    def train_step(self, x):
        self.model.train()
        recon, mu, logvar = self.model(x)
        terms = vae_loss_terms(recon, x, mu, logvar)
        total = torch.tensor(terms["recon"] + self.beta * terms["kl"])
        self.opt.zero_grad()
        total.backward()  # bug: GG102
        self.opt.step()
        self.log.append({**terms, "total": total.item()})
        return terms

    def train_epoch(self, data, batch_size=16):
        perm = torch.randperm(data.size(0))
        for i in range(0, data.size(0), batch_size):
            self.train_step(data[perm[i:i + batch_size]])
        return self.log[-1]


def main():
    torch.manual_seed(0)
    data = torch.rand(64, 20)
    trainer = VAETrainer(VAE())
    for epoch in range(2):
        last = trainer.train_epoch(data)
        print(f"epoch {epoch}: recon={last['recon']:.3f} kl={last['kl']:.3f}")


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, AttributeError) as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
