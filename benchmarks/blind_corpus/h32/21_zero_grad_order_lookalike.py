"""Look-alike: GAN step that zeroes the *other* network's grads between backward and step.

Modelled on: https://discuss.pytorch.org/t/what-step-backward-and-zero-grad-do/33301 (counterpart)

The discriminator loss is back-propagated through the generator (no detach),
so the generator also receives stray gradients.  The trainer calls
``opt_g.zero_grad()`` between ``d_loss.backward()`` and ``opt_d.step()`` to
discard them; the discriminator's own gradients are untouched, so
``opt_d.step()`` updates D correctly.  The generator step then follows the
usual zero_grad -> backward -> step order.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, z_dim, out_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, 32), nn.ReLU(), nn.Linear(32, out_dim))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, in_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


class GANTrainer:
    def __init__(self, args):
        self.args = args
        self.G = Generator(args.z_dim, args.x_dim)
        self.D = Discriminator(args.x_dim)
        self.opt_g = torch.optim.SGD(self.G.parameters(), lr=args.lr)
        self.opt_d = torch.optim.SGD(self.D.parameters(), lr=args.lr)

    def d_step(self, real):
        z = torch.randn(real.size(0), self.args.z_dim)
        fake = self.G(z)  # not detached: G also gets gradients from d_loss
        d_loss = F.softplus(-self.D(real)).mean() + F.softplus(self.D(fake)).mean()
        self.opt_d.zero_grad()
        d_loss.backward()
        self.opt_g.zero_grad()  # drop the stray generator gradients only
        self.opt_d.step()
        return d_loss.item()

    def g_step(self, batch_size):
        z = torch.randn(batch_size, self.args.z_dim)
        g_loss = F.softplus(-self.D(self.G(z))).mean()
        self.opt_g.zero_grad()
        g_loss.backward()
        self.opt_g.step()
        return g_loss.item()

    def train(self, loader):
        for real in loader:
            self.d_step(real)
            self.g_step(real.size(0))


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--z-dim", type=int, default=4)
    p.add_argument("--x-dim", type=int, default=2)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--batch-size", type=int, default=16)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = get_args([])
    trainer = GANTrainer(args)
    g = torch.Generator().manual_seed(0)
    loader = [torch.randn(args.batch_size, args.x_dim, generator=g) + 2.0 for _ in range(4)]
    d_before = [p.detach().clone() for p in trainer.D.parameters()]
    g_before = [p.detach().clone() for p in trainer.G.parameters()]
    trainer.train(loader)
    assert all(not torch.equal(b, p.detach()) for b, p in zip(d_before, trainer.D.parameters()))
    assert all(not torch.equal(b, p.detach()) for b, p in zip(g_before, trainer.G.parameters()))
    print("OK")
