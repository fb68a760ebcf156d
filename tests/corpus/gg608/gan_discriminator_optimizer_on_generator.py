"""A GAN whose discriminator optimizer was given the generator's parameters.

Modelled on zhaoyuzhi/deepfillv2 pull request #3 ("Fix optimizer parameter setting of D",
https://github.com/zhaoyuzhi/deepfillv2/pull/3): the discriminator's optimizer was built on
the wrong network. The discriminator's loss is computed on `fake.detach()`, so it never
reaches the generator: `optimizer_D.step()` applies no gradient of it, and the discriminator
never learns. (The generator's own optimizer is right and stays silent.)
"""

import torch
from torch import nn


class Generator(nn.Module):
    def __init__(self, latent=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent, 64), nn.ReLU(), nn.Linear(64, 32), nn.Tanh())

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))

    def forward(self, x):
        return self.net(x)


generator = Generator()
discriminator = Discriminator()
adversarial_loss = nn.BCEWithLogitsLoss()
optimizer_G = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))  # expect: GG608

for i in range(10):
    real = torch.randn(8, 32)
    valid = torch.ones(8, 1)
    fake_label = torch.zeros(8, 1)

    optimizer_G.zero_grad()
    z = torch.randn(8, 16)
    gen_imgs = generator(z)
    g_loss = adversarial_loss(discriminator(gen_imgs), valid)
    g_loss.backward()
    optimizer_G.step()

    optimizer_D.zero_grad()
    real_loss = adversarial_loss(discriminator(real), valid)
    fake_loss = adversarial_loss(discriminator(gen_imgs.detach()), fake_label)
    d_loss = (real_loss + fake_loss) / 2
    d_loss.backward()
    optimizer_D.step()
    print(i, d_loss.item(), g_loss.item())
