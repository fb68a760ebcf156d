"""A submodule or helper that writes into the tensor it is given, after the caller's own
graph saved that tensor for backward (GG302, reported at the call).

Modelled on Jee-King/TSAN (Train/model/tsan.py, issue #3): a block's `forward` runs a dense
branch on `x` (whose first convolution keeps `x` for its weight gradient), then hands the
same `x` to a split-and-reassemble module whose `forward` does `out = x` and writes the
processed quarters back with slice assignments. `out` is `x`: the write changes the tensor
the convolution kept, and `backward()` raises "one of the variables needed for gradient
computation has been modified by an inplace operation". The maintainers' fix was
`out = x.clone()`. A second shape: a preview helper mapping generator output to [0, 1] with
`imgs.clamp_(-1, 1).add_(1).mul_(0.5)` before the generator loss backpropagates through the
Tanh that kept that output.

Look-alikes that run: the module cloning before writing, the caller passing a copy, and the
helper working out of place.
"""

import torch
from torch import nn


class WritesIntoInput(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.mix = nn.Conv2d(2 * channels, channels, 1)

    def forward(self, x):
        half = x.size(2) // 2
        top, bottom = x[:, :, :half], x[:, :, half:]
        mixed = self.mix(torch.cat([top, bottom], 1))
        out = x
        out[:, :, :half] = mixed
        return out


class ClonesFirst(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.mix = nn.Conv2d(2 * channels, channels, 1)

    def forward(self, x):
        half = x.size(2) // 2
        top, bottom = x[:, :, :half], x[:, :, half:]
        mixed = self.mix(torch.cat([top, bottom], 1))
        out = x.clone()
        out[:, :, :half] = mixed
        return out


class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.dense = nn.Conv2d(channels, channels, 3, padding=1)
        self.split = WritesIntoInput(channels)

    def forward(self, x):
        down = self.dense(x)
        top = self.split(x)  # expect: GG302
        return down * top


class CopyingBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.dense = nn.Conv2d(channels, channels, 3, padding=1)
        self.split = WritesIntoInput(channels)

    def forward(self, x):
        down = self.dense(x)
        top = self.split(x.clone())
        return down * top


class CloningBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.dense = nn.Conv2d(channels, channels, 3, padding=1)
        self.split = ClonesFirst(channels)

    def forward(self, x):
        down = self.dense(x)
        top = self.split(x)
        return down * top


def to_unit_range(images):
    return images.clamp_(-1, 1).add_(1).mul_(0.5)


def to_unit_range_copy(images):
    return images.clamp(-1, 1).add(1).mul(0.5)


def generator_step(previews):
    generator = nn.Sequential(nn.Linear(8, 16), nn.Tanh())
    critic = nn.Linear(16, 1)
    fake = generator(torch.randn(4, 8))
    loss = critic(fake).mean()
    previews.append(to_unit_range(fake).detach())  # expect: GG302
    loss.backward()


def generator_step_copy(previews):
    generator = nn.Sequential(nn.Linear(8, 16), nn.Tanh())
    critic = nn.Linear(16, 1)
    fake = generator(torch.randn(4, 8))
    loss = critic(fake).mean()
    previews.append(to_unit_range_copy(fake).detach())
    loss.backward()


if __name__ == "__main__":
    stem = nn.Conv2d(3, 4, 1)
    images = torch.randn(2, 3, 8, 8)
    block = Block(4)
    try:
        block(stem(images)).sum().backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error), error
    else:
        raise AssertionError("the split module's write did not break backward")
    copying = CopyingBlock(4)
    copying(stem(images)).sum().backward()
    cloning = CloningBlock(4)
    cloning(stem(images)).sum().backward()
    try:
        generator_step([])
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error), error
    else:
        raise AssertionError("the preview helper's clamp_ did not break backward")
    generator_step_copy([])
    print("writes into a saved argument raised; the copies ran")
