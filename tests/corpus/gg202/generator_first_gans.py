"""GANs that update the generator first and then reuse its output for the discriminator.

The shape of the eriklindernoren/PyTorch-GAN implementations
(https://github.com/eriklindernoren/PyTorch-GAN, rewritten): layers built by a helper and
unpacked into `nn.Sequential(*block(...))`, `g_loss.backward()` first, then the
discriminator's loss on the same `gen_imgs`. Without `.detach()` the second backward runs
into the generator's freed graph ("Trying to backward through the graph a second time",
the most common GAN error on discuss.pytorch.org).
"""

import torch
from torch import nn


class Generator(nn.Module):
    def __init__(self, latent=8, out=16):
        super().__init__()

        def block(n_in, n_out, normalize=True):
            layers = [nn.Linear(n_in, n_out)]
            if normalize:
                layers.append(nn.BatchNorm1d(n_out))
            layers.append(nn.LeakyReLU(0.2, inplace=True))
            return layers

        self.model = nn.Sequential(
            *block(latent, 32, normalize=False), *block(32, 64), nn.Linear(64, out), nn.Tanh()
        )

    def forward(self, z):
        img = self.model(z)
        return img.view(img.size(0), -1)


class Discriminator(nn.Module):
    def __init__(self, size=16, classes=3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(size, 32), nn.LeakyReLU(0.2, inplace=True))
        self.adv = nn.Sequential(nn.Linear(32, 1), nn.Sigmoid())
        self.aux = nn.Sequential(nn.Linear(32, classes), nn.Softmax(dim=1))

    def forward(self, img):
        features = self.body(img.view(img.size(0), -1))
        return self.adv(features), self.aux(features)


generator = Generator()
discriminator = Discriminator()
adversarial = nn.BCELoss()
optimizer_g = torch.optim.Adam(generator.parameters(), lr=2e-4)
optimizer_d = torch.optim.Adam(discriminator.parameters(), lr=2e-4)
batches = [torch.randn(4, 16)]

for epoch in range(2):
    for real in batches:
        valid, fake = torch.ones(4, 1), torch.zeros(4, 1)
        optimizer_g.zero_grad()
        gen_imgs = generator(torch.randn(4, 8))
        validity, _ = discriminator(gen_imgs)
        g_loss = adversarial(validity, valid)
        g_loss.backward()  # expect: GG202
        optimizer_g.step()

        optimizer_d.zero_grad()
        real_pred, _ = discriminator(real)
        fake_pred, _ = discriminator(gen_imgs)
        d_loss = (adversarial(real_pred, valid) + adversarial(fake_pred, fake)) / 2
        d_loss.backward()
        optimizer_d.step()

for epoch in range(2):
    for real in batches:
        valid, fake = torch.ones(4, 1), torch.zeros(4, 1)
        optimizer_g.zero_grad()
        gen_imgs = generator(torch.randn(4, 8))
        validity, _ = discriminator(gen_imgs)
        g_loss = adversarial(validity, valid)
        g_loss.backward()
        optimizer_g.step()

        optimizer_d.zero_grad()
        real_pred, _ = discriminator(real)
        fake_pred, _ = discriminator(gen_imgs.detach())
        d_loss = (adversarial(real_pred, valid) + adversarial(fake_pred, fake)) / 2
        d_loss.backward()
        optimizer_d.step()
