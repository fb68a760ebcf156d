"""GG605 look-alike - a zero_grad() sits between backward() and step(), but on ANOTHER optimizer.

GAN training loop: the generator loss is back-propagated through the
discriminator, which leaves stray gradients on D's parameters.  The code then
calls opt_d.zero_grad() to drop those stray gradients and only after that calls
opt_g.step().  The zero_grad() clears the discriminator's buffers, not the
generator's, so the generator step still uses its fresh gradients.  A checker
that flags any zero_grad() between backward() and step() would be wrong.

Modelled on: https://github.com/llSourcell/pytorch_in_5_minutes/issues/1 (correct counterpart)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

LATENT, DATA_DIM, HIDDEN = 8, 2, 32
EPOCHS, BATCH, LR = 2, 16, 2e-3


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(LATENT, HIDDEN), nn.LeakyReLU(0.2),
                                 nn.Linear(HIDDEN, HIDDEN), nn.LeakyReLU(0.2),
                                 nn.Linear(HIDDEN, DATA_DIM))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(DATA_DIM, HIDDEN), nn.LeakyReLU(0.2),
                                 nn.Linear(HIDDEN, 1))

    def forward(self, x):
        return self.net(x)


def train(generator, discriminator, loader, opt_g, opt_d, criterion):
    log = {"d": [], "g": []}
    for epoch in range(EPOCHS):
        for i, (real,) in enumerate(loader):
            b = real.size(0)
            ones, zeros = torch.ones(b, 1), torch.zeros(b, 1)

            # --- discriminator ---
            opt_d.zero_grad()
            fake = generator(torch.randn(b, LATENT))
            d_loss = criterion(discriminator(real), ones) + criterion(discriminator(fake.detach()), zeros)
            d_loss.backward()
            opt_d.step()

            # --- generator ---
            opt_g.zero_grad()
            g_loss = criterion(discriminator(fake), ones)
            g_loss.backward()
            opt_d.zero_grad()  # drop the stray grads g_loss left on D
            opt_g.step()

            log["d"].append(d_loss.item())
            log["g"].append(g_loss.item())
        print(f"[{epoch}] d_loss {sum(log['d'][-len(loader):]) / len(loader):.3f} "
              f"g_loss {sum(log['g'][-len(loader):]) / len(loader):.3f}")
    return log


def main():
    torch.manual_seed(2)
    angles = torch.rand(96) * 6.283
    ring = torch.stack([angles.cos(), angles.sin()], 1) * 2 + 0.05 * torch.randn(96, 2)
    loader = DataLoader(TensorDataset(ring), batch_size=BATCH, shuffle=True)
    g, d = Generator(), Discriminator()
    opt_g = torch.optim.Adam(g.parameters(), lr=LR, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(d.parameters(), lr=LR, betas=(0.5, 0.999))
    g_before = g.net[0].weight.detach().clone()
    train(g, d, loader, opt_g, opt_d, nn.BCEWithLogitsLoss())
    return g_before, g, d


if __name__ == "__main__":
    g_before, g, d = main()
    assert not torch.equal(g_before, g.net[0].weight.detach())
    assert all(p.grad is None for p in d.parameters())
    print("OK")
