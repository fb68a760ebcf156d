"""GG111 look-alike - sigmoid output into binary_cross_entropy, logits into the *_with_logits loss.

A VAE decoder ends in torch.sigmoid and its reconstruction is scored with
F.binary_cross_entropy (the probability version) - correct. An auxiliary
"is-this-digit-odd" head returns logits and uses nn.BCEWithLogitsLoss - also correct.
torch.sigmoid on the aux logits is only used to compute accuracy.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class VAE(nn.Module):
    def __init__(self, x_dim=64, z_dim=4, hidden=32):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(x_dim, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, z_dim)
        self.logvar = nn.Linear(hidden, z_dim)
        self.dec = nn.Sequential(nn.Linear(z_dim, hidden), nn.ReLU(), nn.Linear(hidden, x_dim))
        self.aux = nn.Linear(z_dim, 1)

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        recon = torch.sigmoid(self.dec(z))
        aux_logit = self.aux(mu).squeeze(-1)
        return recon, mu, logvar, aux_logit


def vae_losses(model, x, y_aux, aux_criterion, beta=0.5):
    recon, mu, logvar, aux_logit = model(x)
    rec = F.binary_cross_entropy(recon, x, reduction="sum") / x.size(0)
    kld = -0.5 * torch.mean(torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1))
    aux = aux_criterion(aux_logit, y_aux)
    acc = ((torch.sigmoid(aux_logit) > 0.5).float() == y_aux).float().mean()
    return {"rec": rec, "kld": kld, "aux": aux, "total": rec + beta * kld + aux}, acc


def main():
    torch.manual_seed(0)
    protos = (torch.rand(4, 64) > 0.5).float()
    labels = torch.randint(0, 4, (256,))
    flip = (torch.rand(256, 64) < 0.05).float()
    x = (protos[labels] - flip).abs()
    y_aux = (labels % 2).float()
    model = VAE()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    aux_criterion = nn.BCEWithLogitsLoss()
    history = []
    for epoch in range(60):
        losses, acc = vae_losses(model, x, y_aux, aux_criterion)
        opt.zero_grad()
        losses["total"].backward()
        opt.step()
        history.append({k: v.item() for k, v in losses.items()})
        if epoch % 20 == 0:
            print(f"epoch {epoch} " + " ".join(f"{k}={v:.3f}" for k, v in history[-1].items()))
    assert history[-1]["rec"] < 0.6 * history[0]["rec"], history[-1]
    assert history[-1]["aux"] < 0.3, history[-1]


if __name__ == "__main__":
    main()
    print("OK")
