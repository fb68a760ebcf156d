"""GG302 look-alike: in-place ReLU and `out += identity` placed where nothing saved the tensor.

A torchvision-style ResNet BasicBlock: conv -> BN -> ReLU(inplace=True) -> conv -> BN,
then `out += identity` and the in-place ReLU. The tensors changed in place are batch-norm
outputs (BN saves its input, not its output) and the sum, so no tensor needed by backward
is overwritten. Correct code.

Modelled on: https://github.com/osmr/imgclsmob/issues/13 (same inplace ReLU idiom, safe
placement)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def conv3x3(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False)


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
    def __init__(self, num_classes=4):
        super().__init__()
        self.stem = nn.Sequential(conv3x3(3, 16), nn.BatchNorm2d(16), nn.ReLU(inplace=True))
        self.layer1 = BasicBlock(16, 16)
        down = nn.Sequential(nn.Conv2d(16, 32, 1, stride=2, bias=False), nn.BatchNorm2d(32))
        self.layer2 = BasicBlock(16, 32, stride=2, downsample=down)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


def train(loader, model, criterion, optimizer, epoch):
    model.train()
    for images, target in loader:
        loss = criterion(model(images), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 3, 16, 16), torch.randint(0, 4, (16,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = SmallResNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(2):
        train(loader, model, nn.CrossEntropyLoss(), optimizer, epoch)


if __name__ == "__main__":
    main()
    print("OK")
