"""A GAN whose discriminator stacks `nn.LeakyReLU(0.2, inplace=True)` and
`nn.Dropout(0.3, inplace=True)` in an `nn.Sequential`: the in-place LeakyReLU keeps its own
result for backward, the in-place dropout then overwrites it, and `D_loss.backward()` raises
"one of the variables needed for gradient computation has been modified by an inplace
operation" (checked with torch 2.13.0; the out-of-place LeakyReLU keeps its input instead and
the same stack works).

Source (rewritten in our own words, structure kept):
https://github.com/dreamgonfly/GAN-tutorial/issues/1 - the discriminator's backward fails;
the answer is to drop `inplace=True` from LeakyReLU and Dropout.
"""

import torch
from torch import nn


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Linear(28 * 28, 256),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Dropout(0.3, inplace=True),  # expect: GG302
            nn.Linear(256, 1),
            nn.Sigmoid(),
        )

    def forward(self, images):
        return self.main(images.view(-1, 28 * 28))


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Linear(100, 256),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(256, 28 * 28),
            nn.Tanh(),
        )

    def forward(self, noise):
        return self.main(noise)


class QuietDiscriminator(nn.Module):
    """The fixed stack: LeakyReLU out of place keeps its input, dropout may then change its
    output in place."""

    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Linear(28 * 28, 256),
            nn.LeakyReLU(0.2),
            nn.Dropout(0.3, inplace=True),
            nn.Linear(256, 1),
            nn.Sigmoid(),
        )

    def forward(self, images):
        return self.main(images.view(-1, 28 * 28))


def train(discriminator, generator, batches):
    criterion = nn.BCELoss()
    d_optimizer = torch.optim.Adam(discriminator.parameters(), lr=2e-4)
    for images in batches:
        real = torch.ones(images.size(0), 1)
        fake = torch.zeros(images.size(0), 1)
        D_loss = criterion(discriminator(images), real) + criterion(
            discriminator(generator(torch.randn(images.size(0), 100)).detach()), fake
        )
        d_optimizer.zero_grad()
        D_loss.backward()
        d_optimizer.step()


def main():
    batches = [torch.rand(4, 1, 28, 28) for _ in range(2)]
    try:
        train(Discriminator(), Generator(), batches)
    except RuntimeError as error:
        assert "inplace operation" in str(error)


def check_quiet():
    discriminator = QuietDiscriminator()
    discriminator(torch.rand(4, 1, 28, 28)).mean().backward()


main()
check_quiet()
