"""GG302 - in-place add on the output of an in-place ReLU that backward still needs.

A small CIFAR-style ResNet.  In the BasicBlock the author moved the final
activation before the shortcut addition, keeping the memory-saving in-place
ReLU and the in-place `out += identity`.  ReLU saves its *output* for the
backward pass; the `+=` then overwrites that saved tensor, and backward()
raises:
  RuntimeError: one of the variables needed for gradient computation has been
  modified by an inplace operation: [torch.FloatTensor [8, 32, 4, 4]], which is
  output 0 of Relu, is at version 2; expected version 1 instead. ...

Modelled on: https://github.com/pytorch/pytorch/issues/5687
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def conv3x3(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, 3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out = self.relu(out)
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity  # bug: GG302
        return out


class SmallResNet(nn.Module):
    def __init__(self, num_classes=10, width=16):
        super().__init__()
        self.stem = nn.Sequential(conv3x3(3, width), nn.BatchNorm2d(width), nn.ReLU(inplace=True))
        self.layer1 = BasicBlock(width, width)
        down = nn.Sequential(nn.Conv2d(width, 2 * width, 1, stride=2, bias=False), nn.BatchNorm2d(2 * width))
        self.layer2 = BasicBlock(width, 2 * width, stride=2, downsample=down)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(2 * width, num_classes)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


def train(model, loader, optimizer, criterion, device, clip=5.0):
    model.train()
    total, correct, loss_sum = 0, 0, 0.0
    for batch_idx, (inputs, targets) in enumerate(loader):
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        loss_sum += loss.item()
        correct += outputs.argmax(1).eq(targets).sum().item()
        total += targets.size(0)
    return loss_sum / (batch_idx + 1), 100.0 * correct / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", default=0.1, type=float)
    parser.add_argument("--epochs", default=1, type=int)
    parser.add_argument("--batch-size", default=8, type=int)
    args = parser.parse_args([])
    torch.manual_seed(0)
    device = "cpu"
    data = TensorDataset(torch.randn(24, 3, 8, 8), torch.randint(0, 10, (24,)))
    loader = DataLoader(data, batch_size=args.batch_size, shuffle=True)
    model = SmallResNet().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        loss, acc = train(model, loader, optimizer, criterion, device)
        scheduler.step()
        print(f"epoch {epoch}: loss={loss:.3f} acc={acc:.1f}%")


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        raise SystemExit(0)
    raise SystemExit("NO BUG")
