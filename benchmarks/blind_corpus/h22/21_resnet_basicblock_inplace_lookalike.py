"""Category GG302 look-alike - in-place ReLU and `out += identity` that are safe.

A CIFAR-style ResNet BasicBlock: in-place ReLU after each BatchNorm, then the
residual is added in place (`out += identity`) and a final in-place ReLU runs.
BatchNorm saves its *input*, not its output, and the addition saves nothing, so
none of these in-place writes touches a tensor that backward still needs; the
identity branch is added before the activation, not after. Training, a cosine LR
scheduler and a checkpoint to a temporary directory all run cleanly.
Expected: runs cleanly.

Modelled on: none found (torchvision-style BasicBlock)
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
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


class SmallResNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True))
        self.layer1 = BasicBlock(8, 8)
        self.layer2 = BasicBlock(8, 16, stride=2)
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    model = SmallResNet().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=4)
    criterion = nn.CrossEntropyLoss()
    for step in range(4):
        x = torch.randn(4, 3, 16, 16, device=device)
        y = torch.randint(0, 10, (4,), device=device)
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        print(f"step {step}: loss {loss.item():.3f} lr {scheduler.get_last_lr()[0]:.4f}")
    with tempfile.TemporaryDirectory() as tmp:
        torch.save({"model": model.state_dict(), "optim": optimizer.state_dict()},
                   os.path.join(tmp, "last.pth"))


if __name__ == "__main__":
    main()
    print("OK")
