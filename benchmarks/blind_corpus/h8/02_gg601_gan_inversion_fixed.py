"""GG601 (fixed) - the discriminator's gradients are cleared before its backward.

Originally the discriminator optimizer was stepped every iteration without
`opt_d.zero_grad()`, so D's gradient kept the leftovers of every earlier D loss and
of the encoder's adversarial loss (which also back-propagates into D).
Fix: `opt_d.zero_grad()` before computing the discriminator loss.

Modelled on: https://github.com/Hsintien-Ng/idinvert_pytorch-reproduced/issues/1
"""
import os
import tempfile
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TrainConfig:
    image_dim: int = 64
    latent_dim: int = 16
    batch_size: int = 16
    iterations: int = 4
    lr_e: float = 1e-4
    lr_d: float = 1e-4
    adv_weight: float = 0.1
    ckpt_dir: str = tempfile.mkdtemp(prefix="idinvert_")


class Generator(nn.Module):
    """Stand-in for a pretrained generator; kept frozen during inversion."""

    def __init__(self, latent_dim, image_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent_dim, 128), nn.LeakyReLU(0.2), nn.Linear(128, image_dim), nn.Tanh())

    def forward(self, w):
        return self.net(w)


class Encoder(nn.Module):
    def __init__(self, image_dim, latent_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(image_dim, 128), nn.LeakyReLU(0.2), nn.Linear(128, latent_dim))

    def forward(self, x):
        return self.net(x)


class Discriminator(nn.Module):
    def __init__(self, image_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(image_dim, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))

    def forward(self, x):
        return self.net(x)


def build_models(cfg):
    G = Generator(cfg.latent_dim, cfg.image_dim)
    for p in G.parameters():
        p.requires_grad_(False)
    E = Encoder(cfg.image_dim, cfg.latent_dim)
    D = Discriminator(cfg.image_dim)
    opt_e = torch.optim.Adam(E.parameters(), lr=cfg.lr_e, betas=(0.0, 0.99))
    opt_d = torch.optim.Adam(D.parameters(), lr=cfg.lr_d, betas=(0.0, 0.99))
    return {"G": G, "E": E, "D": D}, {"E": opt_e, "D": opt_d}


def train_step(models, opts, real, cfg):
    G, E, D = models["G"], models["E"], models["D"]
    opt_e, opt_d = opts["E"], opts["D"]

    # ---- discriminator update
    with torch.no_grad():
        fake = G(E(real))
    opt_d.zero_grad()
    d_real = D(real)
    d_fake = D(fake)
    d_loss = F.softplus(d_fake).mean() + F.softplus(-d_real).mean()
    d_loss.backward()
    opt_d.step()  # fixed: GG601

    # ---- encoder update
    opt_e.zero_grad()
    rec = G(E(real))
    rec_loss = F.mse_loss(rec, real)
    adv_loss = F.softplus(-D(rec)).mean()
    e_loss = rec_loss + cfg.adv_weight * adv_loss
    e_loss.backward()
    opt_e.step()
    return {"d_loss": d_loss.item(), "rec": rec_loss.item(), "adv": adv_loss.item()}


def train(models, opts, cfg):
    logs = []
    for it in range(cfg.iterations):
        real = torch.tanh(torch.randn(cfg.batch_size, cfg.image_dim))
        stats = train_step(models, opts, real, cfg)
        logs.append(stats)
        if it % 2 == 0:
            print(f"[iter {it:03d}] " + " ".join(f"{k}={v:.4f}" for k, v in stats.items()))
    torch.save({"E": models["E"].state_dict(), "D": models["D"].state_dict()},
               os.path.join(cfg.ckpt_dir, "encoder_last.pth"))
    return logs


def check_training():
    torch.manual_seed(0)
    cfg = TrainConfig()
    models, opts = build_models(cfg)
    probe = models["D"].net[2].weight
    fresh, seen = [], []
    probe.register_hook(lambda g: fresh.append(g.detach().clone()))
    opts["D"].register_step_pre_hook(lambda opt, a, kw: seen.append(probe.grad.detach().clone()))
    train(models, opts, cfg)
    # backward order per iteration: D loss (reaches D), encoder loss (also reaches D)
    d_grad_iter2 = fresh[2]
    diff = (seen[1] - d_grad_iter2).abs().max().item()
    assert diff < 1e-6, (
        f"D was stepped at iteration 2 with a gradient that is not its own d_loss gradient "
        f"(max diff {diff:.3e}); leftover gradients from iteration 1 were never cleared"
    )


if __name__ == "__main__":
    check_training()
    print("FIXED: ok")
