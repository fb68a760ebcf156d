"""Category GG102 look-alike -- correct code.
A VAE training loop converts losses with .item(), float() and .tolist() all over the
place -- for the progress line, a history dict, and class weights built from
numbers -- but backward() is always called on the tensor `loss`, never on anything
rebuilt from those Python numbers.  Runs cleanly and the model trains.
Modelled on: https://github.com/davidmascharka/tbd-nets/issues/8 (loss.item() logged
next to loss.backward())
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

HP = {"x_dim": 20, "z_dim": 4, "h": 32, "bs": 16, "epochs": 3, "lr": 2e-3, "beta": 0.5}


class VAE(nn.Module):
    def __init__(self, x_dim, h, z_dim):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(x_dim, h), nn.ReLU())
        self.mu, self.logvar = nn.Linear(h, z_dim), nn.Linear(h, z_dim)
        self.dec = nn.Sequential(nn.Linear(z_dim, h), nn.ReLU(), nn.Linear(h, x_dim))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


def vae_loss(recon, x, mu, logvar, beta, feat_w):
    rec = (feat_w * (recon - x) ** 2).sum(1).mean()
    kld = -0.5 * torch.mean(torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1))
    return rec + beta * kld, {"rec": rec.item(), "kld": float(kld)}


def main():
    torch.manual_seed(0)
    x = torch.randn(64, HP["x_dim"])
    variances = x.var(0).tolist()
    feat_w = torch.tensor([1.0 / v for v in variances])
    loader = DataLoader(TensorDataset(x), batch_size=HP["bs"], shuffle=True)
    model = VAE(HP["x_dim"], HP["h"], HP["z_dim"])
    opt = torch.optim.Adam(model.parameters(), lr=HP["lr"])
    history = {"loss": [], "rec": [], "kld": []}
    for epoch in range(HP["epochs"]):
        for (xb,) in loader:
            recon, mu, logvar = model(xb)
            loss, parts = vae_loss(recon, xb, mu, logvar, HP["beta"], feat_w)
            opt.zero_grad()
            loss.backward()
            opt.step()
            history["loss"].append(loss.item())
            for k, v in parts.items():
                history[k].append(v)
        print(f"epoch {epoch}: loss={history['loss'][-1]:.3f} rec={history['rec'][-1]:.3f} "
              f"kld={history['kld'][-1]:.3f}")
    assert model.mu.weight.grad is not None


if __name__ == "__main__":
    main()
    print("OK")
