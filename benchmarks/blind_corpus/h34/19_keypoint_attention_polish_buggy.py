"""RK-Net style unit-subtraction attention with border "polishing".

Modelled on: https://github.com/AggMan96/RK-Net/issues/9

The attention module computes ``att = relu(conv(x))`` and, when ``polish`` is
on, zeroes the border rows/columns of ``att`` with slice assignments
(``att[:, :, :, 0] = 0`` ...). ReLU saved its output for backward, and the
slice assignments modify exactly that tensor in place, so the training step
fails with "one of the variables needed for gradient computation has been
modified by an inplace operation: [...] output 0 of ReluBackward0".
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class USAM(nn.Module):
    """Unit subtraction attention module."""

    def __init__(self, channels, polish=True):
        super().__init__()
        self.conv = nn.Conv2d(channels, 1, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(1)
        self.polish = polish

    def forward(self, x):
        y = self.bn(self.conv(x))
        att = F.relu(y)
        if self.polish:
            att[:, :, :, 0] = 0  # bug: GG302
            att[:, :, :, -1] = 0
            att[:, :, 0, :] = 0
            att[:, :, -1, :] = 0
        return x * att + x


class Backbone(nn.Module):
    def __init__(self, num_classes, polish):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.usam = USAM(8, polish)
        self.head = nn.Linear(8, num_classes)

    def forward(self, x):
        f = self.usam(self.stem(x))
        return self.head(f.mean(dim=(2, 3)))


def train_one_epoch(model, loader, optimizer):
    model.train()
    total = 0.0
    for img, label in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(img), label)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--polish", action="store_true", default=True)
    p.add_argument("--classes", type=int, default=4)
    args = p.parse_args([])
    torch.manual_seed(0)
    imgs = torch.randn(16, 3, 12, 12)
    labels = torch.randint(0, args.classes, (16,))
    loader = [(imgs[i:i + 8], labels[i:i + 8]) for i in range(0, 16, 8)]
    model = Backbone(args.classes, args.polish)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    try:
        train_one_epoch(model, loader, optimizer)
        print("no error")
    except RuntimeError as e:
        print("BUGGY:", str(e)[:140])


if __name__ == "__main__":
    main()
