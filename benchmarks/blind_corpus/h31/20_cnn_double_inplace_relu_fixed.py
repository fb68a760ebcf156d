"""Small CNN classifier whose stem applies two in-place ReLUs in a row.

Modelled on: https://github.com/pytorch/pytorch/issues/34429

The reporter's block was conv -> bn -> ReLU(inplace=True) -> ReLU(inplace=True)
and backward() failed with "one of the variables needed for gradient
computation has been modified by an inplace operation ... output 0 of
ReluBackward0".  The first ReLU saves its own output for backward (ReLU's
gradient is computed from the result); the second in-place ReLU overwrites that
very tensor and bumps its version counter, so the saved value is stale by the
time backward() runs.  Here the duplicate activation comes from a `Stem` module
that already ends in an in-place ReLU and a network that applies its own
`self.act` (also in place) on top.

Fixed version: the redundant second activation is removed.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def get_config(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--width", type=int, default=16)
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--steps", type=int, default=2)
    return p.parse_args(argv)


class Stem(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, kernel_size=3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(out_ch)
        self.relu1 = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.relu1(self.bn(self.conv1(x)))


class ConvBlock(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, 3, stride=2, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(out_ch)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class SmallNet(nn.Module):
    def __init__(self, width, num_classes):
        super().__init__()
        self.stem = Stem(3, width)
        self.layer1 = ConvBlock(width, 2 * width)
        self.layer2 = ConvBlock(2 * width, 4 * width)
        self.fc = nn.Linear(4 * width, num_classes)

    def forward(self, x):
        x = self.stem(x)  # the stem already ends in its ReLU
        x = self.layer2(self.layer1(x))
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(x)


def fit(model, cfg):
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    model.train()
    for step in range(cfg.steps):
        images = torch.randn(cfg.batch, 3, 16, 16)
        labels = torch.randint(0, cfg.classes, (cfg.batch,))
        opt.zero_grad()
        loss = criterion(model(images), labels)
        loss.backward()
        opt.step()
    return loss.item()


def main(argv=None):
    torch.manual_seed(0)
    cfg = get_config(argv)
    return fit(SmallNet(cfg.width, cfg.classes), cfg)


if __name__ == "__main__":
    loss = main([])
    assert loss == loss
    print("FIXED: ok")
