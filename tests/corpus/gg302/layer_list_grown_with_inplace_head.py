"""Residual blocks whose layer list is grown step by step (`+=`, `append`, `extend`,
`insert(0, ...)`) and then unpacked into `nn.Sequential(*layers)`, with an in-place ReLU
ending up first: running the stack overwrites the block input, which the shortcut
projection computed just before has kept for its weight gradient. Backward then raises
"one of the variables needed for gradient computation has been modified by an inplace
operation" (checked with torch 2.13.0).

Sources (rewritten in our own words, structure kept):
* https://github.com/rosinality/vq-vae-2-pytorch/issues/60 - a residual block whose stack
  starts with `nn.ReLU(inplace=True)`, so the stack changes the block input it shares
  with the shortcut; the maintainer agreed it was a bug and made the ReLU out of place.
  Here the shortcut is a 1x1 convolution, which keeps that input for backward.
* https://github.com/iduta/iresnet/pull/2 - an in-place ReLU applied to a block input
  rewrote the identity branch as well; the fix dropped `inplace=True`.

Each buggy block only changes the input through the head of its list, which the analysis
finds by following the list's statements: a loop of `+=` leaves the head unknown, but a
later `insert(0, relu)` fixes it whatever came before, and `append`/`extend` never move it.

Look-alikes that run: the in-place ReLU inside the list but not first, an out-of-place
layer inserted at the head, a head that depends on a constructor flag (another layer may
come first), and a shortcut computed after the stack ran.
"""

import torch
from torch import nn


class InsertedHead(nn.Module):
    """Xception-style: the list is grown in a loop, its first ReLU dropped by a slice, and
    the shared in-place ReLU put back at the head."""

    def __init__(self, channels: int, reps: int, downsample: bool) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, channels, 3, padding=1)
        self.shortcut = nn.Conv2d(channels, channels, 1, bias=False)
        self.relu = nn.ReLU(inplace=True)
        rep = []
        for _ in range(reps):
            rep += [self.relu, nn.Conv2d(channels, channels, 3, padding=1), nn.BatchNorm2d(channels)]
        rep = rep[1:]
        rep.insert(0, self.relu)
        if downsample:
            rep.append(nn.MaxPool2d(3, 1, 1))
        self.rep = nn.Sequential(*rep)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.stem(x)
        skip = self.shortcut(h)
        out = self.rep(h)  # expect: GG302
        return out + skip


def pre_activation_stack(channels: int) -> nn.Sequential:
    layers = []
    layers += [nn.ReLU(inplace=True)]
    layers.append(nn.Conv2d(channels, channels, 3, padding=1))
    layers.extend([nn.ReLU(), nn.Conv2d(channels, channels, 1)])
    return nn.Sequential(*layers)


class BuiltByHelper(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, channels, 3, padding=1)
        self.shortcut = nn.Conv2d(channels, channels, 1)
        self.body = pre_activation_stack(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.stem(x)
        skip = self.shortcut(h)
        return self.body(h) + skip  # expect: GG302


class SafeBlocks(nn.Module):
    """Look-alikes: none of these stacks changes the tensor the shortcut keeps."""

    def __init__(self, channels: int, norm_first: bool) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, channels, 3, padding=1)
        self.shortcut = nn.Conv2d(channels, channels, 1)
        # The in-place ReLU comes after a convolution: it changes the convolution's output.
        late = []
        late.append(nn.Conv2d(channels, channels, 3, padding=1))
        late.append(nn.ReLU(inplace=True))
        self.late = nn.Sequential(*late)
        # An out-of-place layer inserted before the in-place ReLU.
        normed = [nn.ReLU(inplace=True), nn.Conv2d(channels, channels, 1)]
        normed.insert(0, nn.BatchNorm2d(channels))
        self.normed = nn.Sequential(*normed)
        # Which layer comes first depends on the flag (it puts a norm first when set).
        flagged = [nn.ReLU(inplace=True), nn.Conv2d(channels, channels, 1)]
        if norm_first:
            flagged.insert(0, nn.BatchNorm2d(channels))
        self.flagged = nn.Sequential(*flagged)
        # Runs first, shortcut after: nothing the stack changes was kept yet.
        after = []
        after.append(nn.ReLU(inplace=True))
        after.append(nn.Conv2d(channels, channels, 1))
        self.after = nn.Sequential(*after)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.stem(x)
        a = self.late(h) + self.shortcut(h)
        b = self.shortcut(a)
        b = self.normed(a) + b
        c = self.shortcut(b)
        c = self.flagged(b) + c
        d = self.after(c)
        return d + self.shortcut(c)


def train_inserted(images: torch.Tensor) -> None:
    model = InsertedHead(4, 2, downsample=True)
    loss = model(images).pow(2).mean()
    loss.backward()


def train_helper(images: torch.Tensor) -> None:
    model = BuiltByHelper(4)
    loss = model(images).pow(2).mean()
    loss.backward()


def train_safe(images: torch.Tensor) -> None:
    model = SafeBlocks(4, norm_first=True)
    loss = model(images).pow(2).mean()
    loss.backward()


if __name__ == "__main__":
    images = torch.randn(2, 3, 6, 6)
    for run in (train_inserted, train_helper):
        try:
            run(images)
        except RuntimeError as error:
            assert "modified by an inplace operation" in str(error), error
        else:
            raise AssertionError("expected the in-place error")
    train_safe(images)
