"""GG302 look-alike (correct code) - in-place ops that autograd does not mind.

This ResNet-style block does ``out += identity`` and uses ``nn.ReLU(inplace=True)``.
It looks like the "modified by an inplace operation" mistake, but the tensor
changed in place is the output of BatchNorm, which BatchNorm's backward does not
need (it saves its input and statistics), and nothing else saved it.  The
in-place ReLU is applied to a fresh sum.  The input normalisation done in place
happens on data that does not require grad.  Training runs normally.

Modelled on: https://discuss.pytorch.org/t/when-would-the-error-one-of-the-variables-needed-for-gradient-computation-has-been-modified-occur/11976/2
(the part of the thread explaining why the official ResNet's ``out += residual`` is fine)
"""
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"width": 8, "blocks": 2, "epochs": 2, "lr": 0.05, "batch_size": 8}


class BasicBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.conv1 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(ch)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(ch)

    def forward(self, x):
        identity = x
        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        out += identity
        out = self.relu(out)
        return out


class TinyResNet(nn.Module):
    def __init__(self, width, blocks, num_classes=3):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, width, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU(inplace=True))
        self.layers = nn.Sequential(*[BasicBlock(width) for _ in range(blocks)])
        self.head = nn.Linear(width, num_classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.head(x.mean(dim=(2, 3)))


def normalise_(images):
    images.sub_(images.mean()).div_(images.std() + 1e-6)
    return images


def run_epoch(model, loader, optimizer, criterion):
    model.train()
    total = 0.0
    for images, labels in loader:
        images = normalise_(images.clone())
        optimizer.zero_grad()
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()
        total += loss.item() * images.size(0)
    return total / len(loader.dataset)


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.rand(24, 1, 12, 12), torch.randint(0, 3, (24,)))
    loader = DataLoader(data, batch_size=CONFIG["batch_size"], shuffle=True)
    model = TinyResNet(CONFIG["width"], CONFIG["blocks"])
    optimizer = torch.optim.SGD(model.parameters(), lr=CONFIG["lr"], momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(CONFIG["epochs"]):
        loss = run_epoch(model, loader, optimizer, criterion)
        scheduler.step()
        print(f"epoch {epoch}: loss {loss:.4f}")
    torch.save(model.state_dict(), os.path.join(tempfile.mkdtemp(), "resnet.pt"))


if __name__ == "__main__":
    main()
    print("OK")
