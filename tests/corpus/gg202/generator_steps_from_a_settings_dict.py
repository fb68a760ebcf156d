"""A GAN round that updates the generator several times, the count read from a settings
dict the caller passes (`cfg["g_steps"]`), then scores the last generated batch for the
discriminator without `.detach()`. The generator loop's `g_loss.backward()` freed the
graph of that batch, so the discriminator's backward raises "Trying to backward through
the graph a second time". The loop certainly runs (the dict is a module-level literal no
code changes, and `range(2)` yields), so `fake` after it is the loop's last batch.

Source of the shape (several generator or critic updates per round with one generated
batch reused after the loop), rewritten in our own words:
https://github.com/tamarott/SinGAN/issues/58
"""

import torch
import torch.nn.functional as F
from torch import nn

SETTINGS = dict(g_steps=2, z_dim=8, data_dim=6, lr=2e-4)


def make_pair(cfg):
    gen = nn.Sequential(nn.Linear(cfg["z_dim"], 16), nn.ReLU(), nn.Linear(16, cfg["data_dim"]), nn.Tanh())
    disc = nn.Sequential(nn.Linear(cfg["data_dim"], 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    return gen, disc


def train_round(gen, disc, opt_g, opt_d, real, cfg):
    for _ in range(cfg["g_steps"]):
        fake = gen(torch.randn(real.size(0), cfg["z_dim"]))
        g_loss = F.softplus(-disc(fake)).mean()
        opt_g.zero_grad()
        g_loss.backward()  # expect: GG202
        opt_g.step()
    d_loss = F.softplus(disc(fake)).mean() + F.softplus(-disc(real)).mean()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()


def train_round_detached(gen, disc, opt_g, opt_d, real, cfg):
    for _ in range(cfg["g_steps"]):
        fake = gen(torch.randn(real.size(0), cfg["z_dim"]))
        g_loss = F.softplus(-disc(fake)).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
    d_loss = F.softplus(disc(fake.detach())).mean() + F.softplus(-disc(real)).mean()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()


def train_round_fresh_batch(gen, disc, opt_g, opt_d, real, cfg):
    for _ in range(cfg["g_steps"]):
        fake = gen(torch.randn(real.size(0), cfg["z_dim"]))
        g_loss = F.softplus(-disc(fake)).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
    with torch.no_grad():
        fake = gen(torch.randn(real.size(0), cfg["z_dim"]))
    d_loss = F.softplus(disc(fake)).mean() + F.softplus(-disc(real)).mean()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    gen, disc = make_pair(SETTINGS)
    opt_g = torch.optim.Adam(gen.parameters(), lr=SETTINGS["lr"])
    opt_d = torch.optim.Adam(disc.parameters(), lr=SETTINGS["lr"])
    real = torch.rand(4, SETTINGS["data_dim"]) * 2 - 1
    train_round_detached(gen, disc, opt_g, opt_d, real, SETTINGS)
    train_round_fresh_batch(gen, disc, opt_g, opt_d, real, SETTINGS)
    try:
        train_round(gen, disc, opt_g, opt_d, real, SETTINGS)
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
        print("the reused batch raises; the look-alikes run")
    else:
        raise AssertionError("expected the second-backward error")
