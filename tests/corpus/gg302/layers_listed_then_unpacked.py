"""Layers listed first and unpacked into `nn.Sequential(*layers)`, where an in-place layer
overwrites the output the layer before it keeps for backward.

`nn.LeakyReLU`/`nn.ELU` built with `inplace=True` keep their own result (the out-of-place
forms keep their input), and `nn.ReLU` always keeps its result; an in-place dropout right
after them overwrites it in training mode, so backward raises "one of the variables
needed for gradient computation has been modified by an inplace operation" (checked with
torch 2.13.0). The list is only unpacked into the container, so the container runs
exactly those layers in that order.

Sources (rewritten in our own words, structure kept):
* https://github.com/BierOne/bottom-up-attention-vqa/issues/6 - a classifier head whose
  layer list is `Linear, ReLU, Dropout(inplace=True), Linear`, unpacked into a Sequential;
  the answer was to build the dropout with `inplace=False`.
* https://github.com/eriklindernoren/PyTorch-GAN/blob/master/implementations/dcgan/dcgan.py
  - a discriminator block written as a list `[Conv2d, LeakyReLU(0.2, inplace=True),
  Dropout2d(0.25)]`, which is fine (the dropout is out of place: `SafeHead` keeps that
  shape); `discriminator` below makes the dropout in place, which breaks the backward.

Still missed: a list grown by `append` (`AppendedHead`); the analysis reads the layers only
from a list literal that nothing changes before it is unpacked.
"""

import torch
from torch import nn


def discriminator(in_features: int, width: int) -> nn.Module:
    layers = [
        nn.Linear(in_features, width),
        nn.LeakyReLU(0.2, inplace=True),
        nn.Dropout(0.3, inplace=True),  # expect: GG302
        nn.Linear(width, 1),
    ]
    return nn.Sequential(*layers)


class ConvStem(nn.Module):
    def __init__(self, channels: int = 3, width: int = 8) -> None:
        super().__init__()
        layers = (
            nn.Conv2d(channels, width, 3, padding=1),
            nn.ELU(inplace=True),
            nn.Dropout2d(0.2, inplace=True),  # expect: GG302
        )
        self.stem = nn.Sequential(*layers)
        self.head = nn.Linear(width, 2)

    def forward(self, x):
        return self.head(self.stem(x).mean(dim=(2, 3)))


class AppendedHead(nn.Module):
    def __init__(self, d: int = 8, h: int = 16) -> None:
        super().__init__()
        layers = [nn.Linear(d, h), nn.ReLU()]
        layers.append(nn.Dropout(0.5, inplace=True))  # missed: GG302
        layers.append(nn.Linear(h, 1))
        self.main = nn.Sequential(*layers)

    def forward(self, x):
        return self.main(x)


class SafeHead(nn.Module):
    """Look-alikes: out-of-place LeakyReLU keeps its input, and an in-place ReLU right after
    a linear layer changes nothing the linear layer kept."""

    def __init__(self, d: int = 8, h: int = 16) -> None:
        super().__init__()
        leaky = [nn.Linear(d, h), nn.LeakyReLU(0.2), nn.Dropout(0.3, inplace=True)]
        block = [nn.Linear(h, h), nn.LeakyReLU(0.2, inplace=True), nn.Dropout(0.25)]
        relu = [nn.Linear(h, h), nn.ReLU(inplace=True), nn.Linear(h, 1)]
        self.features = nn.Sequential(*leaky)
        self.block = nn.Sequential(*block)
        self.out = nn.Sequential(*relu)

    def forward(self, x):
        return self.out(self.block(self.features(x)))


def train_discriminator(disc, batches):
    optimizer = torch.optim.Adam(disc.parameters(), lr=2e-4)
    for real, labels in batches:
        optimizer.zero_grad()
        loss = nn.functional.binary_cross_entropy_with_logits(disc(real), labels)
        loss.backward()
        optimizer.step()


def train_stem(model, images, targets):
    loss = nn.functional.cross_entropy(model(images), targets)
    loss.backward()


def train_head(model, x, y):
    loss = (model(x) - y).pow(2).mean()
    loss.backward()


def train_safe(model, x, y):
    loss = (model(x) - y).pow(2).mean()
    loss.backward()


if __name__ == "__main__":
    try:
        train_discriminator(discriminator(6, 8), [(torch.randn(4, 6), torch.ones(4, 1))])
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")
    try:
        train_stem(ConvStem(), torch.randn(2, 3, 6, 6), torch.tensor([0, 1]))
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")
    try:
        train_head(AppendedHead(), torch.randn(4, 8), torch.randn(4, 1))
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")
    train_safe(SafeHead(), torch.randn(4, 8), torch.randn(4, 1))
