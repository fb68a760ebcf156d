"""GG103 look-alike - .detach() right before a backward(), used correctly.

Standard GAN step: the discriminator is trained on G(z).detach() so that its
backward() does not reach the generator; the generator step then runs D on the
non-detached fake. Both backward() calls have graphs (the detached tensor is
only an input of D, whose parameters require grad). An EMA of the losses is kept
with .detach() as well. Nothing here is a bug.

Modelled on: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/388
"""
import torch
import torch.nn as nn

CONFIG = {"z_dim": 8, "x_dim": 2, "hidden": 32, "lr": 2e-4, "steps": 20, "batch": 32}


class Generator(nn.Module):
    def __init__(self, z_dim, x_dim, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, x_dim))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, x_dim, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(x_dim, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x)


class GANTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.G = Generator(cfg["z_dim"], cfg["x_dim"], cfg["hidden"])
        self.D = Discriminator(cfg["x_dim"], cfg["hidden"])
        self.opt_g = torch.optim.Adam(self.G.parameters(), lr=cfg["lr"], betas=(0.5, 0.999))
        self.opt_d = torch.optim.Adam(self.D.parameters(), lr=cfg["lr"], betas=(0.5, 0.999))
        self.crit = nn.BCEWithLogitsLoss()
        self.ema = {"d": None, "g": None}

    def _update_ema(self, key, loss):
        val = loss.detach()
        self.ema[key] = val if self.ema[key] is None else 0.9 * self.ema[key] + 0.1 * val

    def train_step(self, real):
        b = real.size(0)
        ones, zeros = torch.ones(b, 1), torch.zeros(b, 1)
        fake = self.G(torch.randn(b, self.cfg["z_dim"]))

        self.opt_d.zero_grad()
        loss_d = self.crit(self.D(real), ones) + self.crit(self.D(fake.detach()), zeros)
        loss_d.backward()
        self.opt_d.step()

        self.opt_g.zero_grad()
        loss_g = self.crit(self.D(fake), ones)
        loss_g.backward()
        self.opt_g.step()
        self._update_ema("d", loss_d)
        self._update_ema("g", loss_g)


def main():
    torch.manual_seed(0)
    tr = GANTrainer(CONFIG)
    g_before = [p.detach().clone() for p in tr.G.parameters()]
    for step in range(CONFIG["steps"]):
        real = torch.randn(CONFIG["batch"], CONFIG["x_dim"]) * 0.5 + 2.0
        tr.train_step(real)
    assert all(not torch.equal(a, b) for a, b in zip(g_before, tr.G.parameters()))
    print(f"ema D {tr.ema['d']:.3f} G {tr.ema['g']:.3f}")


if __name__ == "__main__":
    main()
    print("OK")
