"""Category GG302 look-alike - in-place ReLU and ``out += identity`` that are safe.

A torchvision-style BasicBlock uses ``nn.ReLU(inplace=True)`` everywhere and
adds the shortcut with ``out += identity``. The in-place ops only overwrite
tensors no backward function needs: BatchNorm output before ReLU (ReLU's
backward uses its own output), and the BN2 output the addition overwrites.
No error; prints OK.
Modelled on: https://github.com/pytorch/vision/issues/807
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def conv3x3(i, o, stride=1):
    return nn.Conv2d(i, o, 3, stride, 1, bias=False)


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
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        out = self.relu(out)
        return out


class SmallResNet(nn.Module):
    def __init__(self, layers=(8, 16), num_classes=5):
        super().__init__()
        self.conv1 = nn.Conv2d(3, layers[0], 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(layers[0])
        self.relu = nn.ReLU(inplace=True)
        blocks, inplanes = [], layers[0]
        for i, planes in enumerate(layers):
            stride = 1 if i == 0 else 2
            down = None
            if stride != 1 or inplanes != planes:
                down = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))
            blocks += [BasicBlock(inplanes, planes, stride, down), BasicBlock(planes, planes)]
            inplanes = planes
        self.layers = nn.Sequential(*blocks)
        self.fc = nn.Linear(inplanes, num_classes)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layers(x)
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def fit(model, loader, optimizer, criterion, epochs=1):
    for epoch in range(epochs):
        model.train()
        correct = 0
        for images, labels in loader:
            optimizer.zero_grad()
            logits = model(images)
            loss = criterion(logits, labels)
            loss.backward()
            optimizer.step()
            correct += (logits.argmax(1) == labels).sum().item()
        print(f"epoch {epoch} loss {loss.item():.4f} acc {correct / len(loader.dataset):.2f}")


def main():
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(16, 3, 12, 12), torch.randint(0, 5, (16,)))
    model = SmallResNet()
    fit(model, DataLoader(ds, batch_size=4, shuffle=True),
        torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9), nn.CrossEntropyLoss())


if __name__ == "__main__":
    main()
    print("OK")
