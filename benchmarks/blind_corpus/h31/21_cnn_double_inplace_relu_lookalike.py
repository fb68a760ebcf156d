"""Small residual CNN that uses in-place ReLUs and an in-place residual add.

Modelled on: https://github.com/pytorch/pytorch/issues/34429 (counterpart)

Looks like the failing network: several nn.ReLU(inplace=True) and an in-place
`out += identity` follow each other.  But every in-place op here writes to a
tensor that no backward formula saved: each ReLU runs on a fresh BatchNorm
output (batch norm saves its input, not its output), and the residual add
writes into bn2's output before the final ReLU.  No ReLU result is modified
after it was saved, so backward() runs cleanly (this is the torchvision layout).
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


class BasicBlock(nn.Module):
    """torchvision-style residual block: in-place ReLUs on batch-norm outputs."""

    def __init__(self, ch):
        super().__init__()
        self.conv1 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(ch)
        self.conv2 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(ch)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        out = self.relu(out)
        return out


class SmallNet(nn.Module):
    def __init__(self, width, num_classes):
        super().__init__()
        self.stem = Stem(3, width)
        self.block = BasicBlock(width)
        self.layer1 = ConvBlock(width, 2 * width)
        self.layer2 = ConvBlock(2 * width, 4 * width)
        self.fc = nn.Linear(4 * width, num_classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.block(x)
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
    print("OK")
