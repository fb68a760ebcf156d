"""The discriminator optimizer holds a generator whose layers are chosen by flags (GG608).

The same mistake as `gan_discriminator_optimizer_on_generator.py` (zhaoyuzhi/deepfillv2
pull request #3, https://github.com/zhaoyuzhi/deepfillv2/pull/3), in the shape of that
repository's networks: each gated convolution picks its activation and normalisation by
a flag (`nn.ELU() if activation else nn.Identity()`). Whichever branch runs, the layer is
built right there and registered, so the generator still owns every parameter it computes
with, and the discriminator's loss on `fake.detach()` certainly never reaches it. Both
networks are bound by one tuple assignment, each name to its own construction.
"""

import torch
from torch import nn


class GatedConv2d(nn.Module):
    def __init__(self, cin, cout, activation=True, norm=False):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.gate = nn.Conv2d(cin, cout, 3, padding=1)
        self.activation = nn.ELU() if activation else nn.Identity()
        self.norm = nn.BatchNorm2d(cout) if norm else None

    def forward(self, x):
        out = self.activation(self.conv(x)) * torch.sigmoid(self.gate(x))
        return self.norm(out) if self.norm is not None else out


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(GatedConv2d(4, 8, norm=True), GatedConv2d(8, 3, activation=False))

    def forward(self, image, mask):
        return torch.tanh(self.body(torch.cat([image * (1 - mask), mask], dim=1)))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(4, 8, 3, stride=2), nn.LeakyReLU(0.2), nn.Flatten())
        self.head = nn.LazyLinear(1)

    def forward(self, image, mask):
        return self.head(self.body(torch.cat([image, mask], dim=1)))


def train(steps=2):
    generator, discriminator = Generator(), Discriminator()
    discriminator(torch.zeros(1, 3, 16, 16), torch.zeros(1, 1, 16, 16))  # builds the lazy head
    optimizer_g = torch.optim.Adam(generator.parameters(), lr=1e-4)
    optimizer_d = torch.optim.Adam(generator.parameters(), lr=4e-4)  # expect: GG608
    before = [p.detach().clone() for p in discriminator.parameters()]
    for _ in range(steps):
        image = torch.rand(2, 3, 16, 16)
        mask = (torch.rand(2, 1, 16, 16) > 0.5).float()
        fake = generator(image, mask)
        optimizer_d.zero_grad()
        loss_d = (
            discriminator(fake.detach(), mask).mean() - discriminator(image, mask).mean()
        )
        loss_d.backward()
        optimizer_d.step()
        optimizer_g.zero_grad()
        loss_g = -discriminator(fake, mask).mean() + (fake - image).abs().mean()
        loss_g.backward()
        optimizer_g.step()
    return before, list(discriminator.parameters())


if __name__ == "__main__":
    before, after = train()
    assert all(torch.equal(b, a) for b, a in zip(before, after))
    print("the discriminator never changed")
