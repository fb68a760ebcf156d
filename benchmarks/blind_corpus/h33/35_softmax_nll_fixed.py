"""Fixed: the model returns log_softmax, which is what F.nll_loss expects.

Modelled on: https://github.com/re9ulus/BC-ResNet/issues/1

The issue asks why BC-ResNet's training uses nll_loss; the answer is that
nll_loss expects log-probabilities (log_softmax output).  In this reproduction
the classifier's forward ends with F.softmax, and the training loop passes
that to F.nll_loss.  nll_loss then just negates a probability: the loss is
negative, bounded in [-1, 0], and its gradients are not those of cross-entropy.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class BCResBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.freq = nn.Conv2d(ch, ch, (3, 1), padding=(1, 0), groups=ch)
        self.temp = nn.Conv2d(ch, ch, (1, 3), padding=(0, 1), groups=ch)
        self.bn = nn.BatchNorm2d(ch)

    def forward(self, x):
        aux = self.freq(x)
        return F.relu(x + self.temp(self.bn(aux)))


class BCResNet(nn.Module):
    def __init__(self, n_classes=12, ch=8):
        super().__init__()
        self.stem = nn.Conv2d(1, ch, 5, stride=2, padding=2)
        self.blocks = nn.Sequential(BCResBlock(ch), BCResBlock(ch))
        self.head = nn.Conv2d(ch, n_classes, 1)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        x = self.head(x).mean(dim=(2, 3))
        return F.log_softmax(x, dim=-1)


def train_epoch(model, optimizer, loader):
    model.train()
    losses = []
    for spec, label in loader:
        out = model(spec)
        loss = F.nll_loss(out, label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def get_args(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=1e-3)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = get_args([])
    model = BCResNet()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    loader = [(torch.randn(4, 1, 20, 20), torch.randint(0, 12, (4,))) for _ in range(2)]
    losses = train_epoch(model, opt, loader)
    assert min(losses) > 0
    print("FIXED: ok")
