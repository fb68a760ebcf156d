"""GG302 look-alike: torchvision-style BasicBlock with ``out += identity``.

The block adds the shortcut in place and uses ``nn.ReLU(inplace=True)``, two
in-place ops in the middle of the forward pass.  Unlike the buggy residual
block, nothing autograd saved is overwritten: ``out`` at the ``+=`` is the
output of BatchNorm, whose backward needs its input (not its output), and each
in-place ReLU acts on a tensor that no other backward function keeps.
Modelled on: none (counter-example to https://github.com/iMED-Lab/ER-Net/pull/3)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def conv3x3(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, 3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False),
                                            nn.BatchNorm2d(planes))

    def forward(self, x):
        identity = x
        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        out = self.relu(out)
        return out


class MiniResNet(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True))
        self.layer1 = BasicBlock(8, 8)
        self.layer2 = BasicBlock(8, 16, stride=2)
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def train(model, loader, optimizer, criterion, epochs=2, max_norm=1.0):
    for epoch in range(epochs):
        model.train()
        correct = total = 0
        for images, targets in loader:
            optimizer.zero_grad(set_to_none=True)
            logits = model(images)
            loss = criterion(logits, targets)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()
            correct += (logits.argmax(1) == targets).sum().item()
            total += targets.numel()
        print(f"epoch {epoch}: loss {loss.item():.3f} acc {correct / total:.2f}")


def main():
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(32, 3, 16, 16), torch.randint(0, 4, (32,)))
    loader = DataLoader(ds, batch_size=8, shuffle=True)
    model = MiniResNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    train(model, loader, optimizer, nn.CrossEntropyLoss(label_smoothing=0.1))


if __name__ == "__main__":
    main()
    print("OK")
