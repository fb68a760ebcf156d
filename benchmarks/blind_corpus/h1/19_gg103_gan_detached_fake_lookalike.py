"""GG103 look-alike - GAN discriminator step on `fake.detach()`.

Correct code. The discriminator loss uses `fake.detach()` so the generator is not
updated in the D step, but it still has a graph through the discriminator's own
parameters (and the real-batch term), so D's backward() works. The generator step
uses the non-detached `fake`. A target computed with `.detach()` for a feature-matching
term is likewise combined with a loss that has history.
"""
import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, z_dim=8, out_dim=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, out_dim), nn.Tanh())

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, in_dim=16):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(in_dim, 32), nn.LeakyReLU(0.2))
        self.out = nn.Linear(32, 1)

    def forward(self, x):
        f = self.features(x)
        return self.out(f), f


class GANTrainer:
    def __init__(self, z_dim=8):
        self.G, self.D, self.z_dim = Generator(z_dim), Discriminator(), z_dim
        self.opt_g = torch.optim.Adam(self.G.parameters(), lr=2e-4, betas=(0.5, 0.999))
        self.opt_d = torch.optim.Adam(self.D.parameters(), lr=2e-4, betas=(0.5, 0.999))
        self.bce = nn.BCEWithLogitsLoss()
        self.losses = {"d": [], "g": []}

    def train_step(self, real):
        b = real.size(0)
        ones, zeros = torch.ones(b, 1), torch.zeros(b, 1)
        fake = self.G(torch.randn(b, self.z_dim))

        d_real, real_feat = self.D(real)
        d_fake, _ = self.D(fake.detach())
        d_loss = self.bce(d_real, ones) + self.bce(d_fake, zeros)
        self.opt_d.zero_grad()
        d_loss.backward()
        self.opt_d.step()

        g_logits, fake_feat = self.D(fake)
        feat_match = (fake_feat.mean(0) - real_feat.detach().mean(0)).pow(2).mean()
        g_loss = self.bce(g_logits, ones) + 0.1 * feat_match
        self.opt_g.zero_grad()
        g_loss.backward()
        self.opt_g.step()

        self.losses["d"].append(d_loss.item())
        self.losses["g"].append(g_loss.item())


def main():
    torch.manual_seed(0)
    trainer = GANTrainer()
    g_before = trainer.G.net[0].weight.detach().clone()
    data = torch.rand(32, 16) * 2 - 1
    for epoch in range(2):
        for i in range(0, 32, 8):
            trainer.train_step(data[i:i + 8])
        print(f"epoch {epoch}: d={trainer.losses['d'][-1]:.3f} g={trainer.losses['g'][-1]:.3f}")
    assert not torch.equal(g_before, trainer.G.net[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
