"""GG605 look-alike: zero_grad() between backward() and step(), but of the other optimizer.

Category GG605 (look-alike, no bug). In the generator update, ``g_loss.backward()`` also
deposits gradients in the discriminator (the loss flows through it). The script clears
them with ``opt_d.zero_grad()`` right away, before ``opt_g.step()``. That zero_grad()
belongs to the discriminator's optimizer, so the generator's gradients are intact when
its optimizer steps. We check that both networks' weights change.
"""
import copy

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

LATENT = 4


def make_gan():
    gen = nn.Sequential(nn.Linear(LATENT, 16), nn.ReLU(), nn.Linear(16, 2))
    disc = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    return gen, disc


def gan_epoch(gen, disc, loader, opt_g, opt_d, bce):
    for (real,) in loader:
        ones = torch.ones(real.size(0), 1)
        zeros = torch.zeros(real.size(0), 1)
        fake = gen(torch.randn(real.size(0), LATENT))

        d_loss = bce(disc(real), ones) + bce(disc(fake.detach()), zeros)
        d_loss.backward()
        opt_d.step()
        opt_d.zero_grad()

        g_loss = bce(disc(fake), ones)
        g_loss.backward()
        opt_d.zero_grad()
        opt_g.step()
        opt_g.zero_grad()
    return d_loss.item(), g_loss.item()


def main():
    torch.manual_seed(19)
    real = torch.randn(64, 2) * 0.5 + torch.tensor([2.0, -1.0])
    loader = DataLoader(TensorDataset(real), batch_size=16, shuffle=True)
    gen, disc = make_gan()
    g0, d0 = copy.deepcopy(gen.state_dict()), copy.deepcopy(disc.state_dict())
    opt_g = torch.optim.Adam(gen.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(disc.parameters(), lr=1e-3)
    for epoch in range(2):
        d, g = gan_epoch(gen, disc, loader, opt_g, opt_d, nn.BCEWithLogitsLoss())
        print(f"epoch {epoch}: D {d:.3f} G {g:.3f}")
    assert all(not torch.equal(g0[k], v) for k, v in gen.state_dict().items())
    assert all(not torch.equal(d0[k], v) for k, v in disc.state_dict().items())


if __name__ == "__main__":
    main()
    print("OK")
