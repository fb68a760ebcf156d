"""A GAN whose models and optimizers are built in `main` and handed to `train_gan(...)`.

`train_gan` detaches the generated batch once, right after generation, and reuses that
detached batch for the generator's update too: `g_loss` reaches only the discriminator's
parameters, so `g_opt.step()` applies no gradient to the generator, which never changes
(checked with torch 2.13.0: every `G` parameter keeps `.grad` None and its first values).
`train_gan` is called once, with plain names, and never rebinds its parameters, so its
`G` and `g_opt` are `main`'s.

Silent: the same loop that feeds the generator's own output to the discriminator for the
generator's loss (`train_gan_fixed`), and a train function called twice with different
models (its parameters then stand for no one name). Modelled on the detached-fake GAN
mistake reported on the PyTorch forums ("generator weights never update", DCGAN variants),
written anew for this corpus.
"""

import torch
from torch import nn


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x)


def train_gan(G, D, g_opt, d_opt, steps):
    bce = nn.BCEWithLogitsLoss()
    ones, zeros = torch.ones(8, 1), torch.zeros(8, 1)
    for _ in range(steps):
        fake = G(torch.randn(8, 4)).detach()
        d_opt.zero_grad()
        d_loss = bce(D(torch.randn(8, 1) + 3), ones) + bce(D(fake), zeros)
        d_loss.backward()
        d_opt.step()
        g_opt.zero_grad()
        g_loss = bce(D(fake), ones)
        g_loss.backward()
        g_opt.step()


def train_gan_fixed(G, D, g_opt, d_opt, steps):
    bce = nn.BCEWithLogitsLoss()
    ones, zeros = torch.ones(8, 1), torch.zeros(8, 1)
    for _ in range(steps):
        fake = G(torch.randn(8, 4))
        d_opt.zero_grad()
        d_loss = bce(D(torch.randn(8, 1) + 3), ones) + bce(D(fake.detach()), zeros)
        d_loss.backward()
        d_opt.step()
        g_opt.zero_grad()
        g_loss = bce(D(fake), ones)
        g_loss.backward()
        g_opt.step()


def train_twice(model, optimizer, inputs):
    optimizer.zero_grad()
    loss = model(inputs).pow(2).mean()
    loss.backward()
    optimizer.step()


def main():
    G, D = Generator(), Discriminator()
    g_opt = torch.optim.Adam(G.parameters(), lr=1e-3)  # expect: GG608
    d_opt = torch.optim.Adam(D.parameters(), lr=1e-3)
    before = [p.detach().clone() for p in G.parameters()]
    train_gan(G, D, g_opt, d_opt, 3)
    assert all(p.grad is None for p in G.parameters())
    assert all(torch.equal(a, b) for a, b in zip(before, G.parameters()))

    G2, D2 = Generator(), Discriminator()
    g2_opt = torch.optim.Adam(G2.parameters(), lr=1e-3)
    d2_opt = torch.optim.Adam(D2.parameters(), lr=1e-3)
    train_gan_fixed(G2, D2, g2_opt, d2_opt, 3)
    assert all(p.grad is not None for p in G2.parameters())

    first, second = Generator(), Discriminator()
    first_opt = torch.optim.SGD(first.parameters(), lr=0.1)
    second_opt = torch.optim.SGD(second.parameters(), lr=0.1)
    train_twice(first, first_opt, torch.randn(8, 4))
    train_twice(second, second_opt, torch.randn(8, 1))


if __name__ == "__main__":
    main()
