"""GG302 - fixed version.

The preview helper maps the images to [0, 1] out of place on a detached
copy, so the Tanh output the generator saved for backward is not modified.
"""
import os
import sys
import tempfile

import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, z_dim=16):
        super().__init__()
        self.fc = nn.Linear(z_dim, 8 * 4 * 4)
        self.up = nn.Sequential(
            nn.ConvTranspose2d(8, 4, 4, stride=2, padding=1), nn.BatchNorm2d(4), nn.ReLU(True),
            nn.ConvTranspose2d(4, 1, 4, stride=2, padding=1), nn.Tanh(),
        )

    def forward(self, z):
        return self.up(self.fc(z).view(-1, 8, 4, 4))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, 8, 4, 2, 1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(8, 16, 4, 2, 1), nn.LeakyReLU(0.2, True),
            nn.Flatten(), nn.Linear(16 * 4 * 4, 1),
        )

    def forward(self, x):
        return self.net(x)


def to_image_range(imgs):
    # [-1, 1] -> [0, 1] for saving
    return imgs.detach().clamp(-1, 1).add(1).mul(0.5)  # fixed: GG302


def save_preview(imgs, out_dir, step):
    torch.save(imgs[:4].detach().cpu(), os.path.join(out_dir, f"preview_{step:04d}.pt"))


def main():
    torch.manual_seed(0)
    G, D = Generator(), Discriminator()
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    bce = nn.BCEWithLogitsLoss()
    real_data = torch.rand(32, 1, 16, 16) * 2 - 1
    with tempfile.TemporaryDirectory() as out_dir:
        for step in range(4):
            real = real_data[torch.randint(0, 32, (8,))]
            fake = G(torch.randn(8, 16))
            # discriminator
            d_loss = bce(D(real), torch.ones(8, 1)) + bce(D(fake.detach()), torch.zeros(8, 1))
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            # generator
            g_loss = bce(D(fake), torch.ones(8, 1))
            if step % 2 == 0:
                save_preview(to_image_range(fake), out_dir, step)
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
            print(f"step {step}: d={d_loss.item():.3f} g={g_loss.item():.3f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
