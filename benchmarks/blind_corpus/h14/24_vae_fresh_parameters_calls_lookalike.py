"""GG610 look-alike - model.parameters() used several times, each call fresh.

A VAE training script counts parameters, builds the optimizer, clips
gradients and computes a weight-norm metric, each time calling
model.parameters() again (a new generator per call), and keeps a named list
for the decoder's L2 penalty.  No generator is iterated twice.  Runs cleanly.

Modelled on: none found (correct counterpart of the exhausted-generator bug)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"x_dim": 24, "z_dim": 4, "hidden": 32, "lr": 1e-3, "epochs": 2, "beta": 1.0, "clip": 0.5, "l2": 1e-4}


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
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.dec(z), mu, logvar


def vae_loss(recon, x, mu, logvar, beta):
    rec = F.mse_loss(recon, x, reduction="sum") / x.size(0)
    kld = -0.5 * torch.mean(torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1))
    return rec + beta * kld, {"rec": rec.item(), "kld": kld.item()}


def weight_norm(model):
    return torch.sqrt(sum(p.detach().pow(2).sum() for p in model.parameters())).item()


def train(model, loader, optimizer, cfg):
    decoder_weights = [p for n, p in model.named_parameters() if n.startswith("dec") and p.dim() > 1]
    norms = []
    for epoch in range(cfg["epochs"]):
        model.train()
        for (x,) in loader:
            recon, mu, logvar = model(x)
            loss, parts = vae_loss(recon, x, mu, logvar, cfg["beta"])
            loss = loss + cfg["l2"] * sum(w.pow(2).sum() for w in decoder_weights)
            optimizer.zero_grad()
            loss.backward()
            norms.append(float(nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])))
            optimizer.step()
        print(f"epoch {epoch}: rec={parts['rec']:.3f} kld={parts['kld']:.3f} |w|={weight_norm(model):.3f}")
    return norms


def main():
    torch.manual_seed(0)
    model = VAE(CONFIG["x_dim"], CONFIG["z_dim"], CONFIG["hidden"])
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    optimizer = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])
    print(f"trainable parameters: {n_params}")
    loader = DataLoader(TensorDataset(torch.randn(64, CONFIG["x_dim"])), batch_size=16, shuffle=True)
    norms = train(model, loader, optimizer, CONFIG)
    assert all(n > 0 for n in norms)
    assert len(optimizer.param_groups[0]["params"]) == len(list(model.parameters()))


if __name__ == "__main__":
    main()
    print("OK")
