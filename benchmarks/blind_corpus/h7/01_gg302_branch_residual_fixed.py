"""GG302 - in-place change of a tensor saved for backward, before backward().

FIXED version. Original mistake: in a two-branch CNN block the output of the stem conv is fed to a side
branch (a conv that saves its input for the weight gradient), and afterwards the
main branch adds the skip connection to that same tensor with ``+=``.  The
in-place add bumps the tensor's version counter, so when ``loss.backward()``
reaches the side conv it finds its saved input changed.

torch raises (buggy version): RuntimeError: one of the variables needed for
gradient computation has been modified by an inplace operation: [...] is at
version 1; expected version 0 instead.
Fix: build the sum out of place (``x = x + skip``) so the saved tensor is intact.

Modelled on: https://discuss.pytorch.org/t/when-would-the-error-one-of-the-variables-needed-for-gradient-computation-has-been-modified-occur/11976/2
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    p = argparse.ArgumentParser(description="two-branch CNN on toy images")
    p.add_argument("--channels", type=int, default=8)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--device", default="cpu")
    return p.parse_args([])


class TwoBranchBlock(nn.Module):
    """Stem conv, an auxiliary 'attention' branch and a skip connection."""

    def __init__(self, in_ch, ch):
        super().__init__()
        self.stem = nn.Conv2d(in_ch, ch, 3, padding=1)
        self.side = nn.Conv2d(ch, ch, 1)
        self.skip = nn.Conv2d(in_ch, ch, 1)

    def forward(self, inp):
        x = self.stem(inp)
        gate = torch.sigmoid(self.side(x))  # side branch keeps x for its backward
        x = x + self.skip(inp)  # fixed: GG302
        return F.relu(x) * gate


class SmallNet(nn.Module):
    def __init__(self, channels, num_classes=4):
        super().__init__()
        self.block1 = TwoBranchBlock(3, channels)
        self.block2 = TwoBranchBlock(channels, channels)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(channels, num_classes)

    def forward(self, x):
        x = self.block1(x)
        x = F.max_pool2d(x, 2)
        x = self.block2(x)
        return self.fc(self.pool(x).flatten(1))


def make_loader(batch_size):
    images = torch.randn(32, 3, 16, 16)
    labels = torch.randint(0, 4, (32,))
    return DataLoader(TensorDataset(images, labels), batch_size=batch_size, shuffle=True)


def train(model, loader, optimizer, criterion, device):
    model.train()
    running = 0.0
    for step, (images, labels) in enumerate(loader):
        images, labels = images.to(device), labels.to(device)
        optimizer.zero_grad()
        logits = model(images)
        loss = criterion(logits, labels)
        loss.backward()
        optimizer.step()
        running += loss.item()
    return running / (step + 1)


def main():
    args = get_args()
    torch.manual_seed(0)
    device = torch.device(args.device)
    model = SmallNet(args.channels).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    loader = make_loader(args.batch_size)
    for epoch in range(args.epochs):
        avg = train(model, loader, optimizer, criterion, device)
        print(f"epoch {epoch} loss {avg:.4f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
