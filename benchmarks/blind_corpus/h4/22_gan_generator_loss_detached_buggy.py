"""GG608 - optimizer steps a model the backpropagated loss never reaches.

In this 1-D GAN the fake batch is detached once, right after generation, and the same
detached tensor is reused for both the discriminator and the generator update. The
generator loss therefore only depends on D's parameters; g_optimizer.step() runs on a
generator whose .grad is None, so G never changes (silent; D keeps getting gradients).
"""
import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, z_dim=4, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, 1))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x)


def sample_real(n):
    return 3.0 + 0.5 * torch.randn(n, 1)


def train_gan(G, D, g_opt, d_opt, steps=30, batch=32, z_dim=4):
    bce = nn.BCEWithLogitsLoss()
    ones, zeros = torch.ones(batch, 1), torch.zeros(batch, 1)
    log = {"d": [], "g": []}
    for step in range(steps):
        real = sample_real(batch)
        fake = G(torch.randn(batch, z_dim)).detach()

        d_opt.zero_grad()
        d_loss = bce(D(real), ones) + bce(D(fake), zeros)
        d_loss.backward()
        d_opt.step()

        g_opt.zero_grad()
        g_loss = bce(D(fake), ones)
        g_loss.backward()
        g_opt.step()  # bug: GG608
        log["d"].append(d_loss.item())
        log["g"].append(g_loss.item())
    return log


def main():
    torch.manual_seed(0)
    G, D = Generator(), Discriminator()
    g_opt = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    d_opt = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
    g_before = [p.detach().clone() for p in G.parameters()]
    log = train_gan(G, D, g_opt, d_opt)
    print(f"d_loss {log['d'][-1]:.3f} g_loss {log['g'][-1]:.3f}")
    g_grads = [p.grad for p in G.parameters()]
    g_unchanged = all(torch.equal(a, b) for a, b in zip(g_before, G.parameters()))
    return g_grads, g_unchanged


if __name__ == "__main__":
    g_grads, g_unchanged = main()
    if all(g is None for g in g_grads) and g_unchanged:
        print("BUGGY: generator optimizer stepped but G received no gradient and never changed")
    else:
        raise SystemExit("NO BUG")
