"""GG602 look-alike - modules called in forward() without using the return value, on purpose.

The residual block calls an in-place ReLU (nn.ReLU(inplace=True)) as a bare
statement: the return value is ignored, but the tensor itself is rectified in
place, so the activation still takes effect.  The network also calls an
activation-statistics monitor whose only job is to update its buffers.
Neither discarded result is a bug; the block output is non-negative (checked).

Modelled on: none found (in-place activation / monitor module idiom)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class ActivationMonitor(nn.Module):
    """Keeps a running mean of the fraction of dead units; returns nothing useful."""

    def __init__(self, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("dead_frac", torch.zeros(()))

    @torch.no_grad()
    def forward(self, x):
        frac = (x <= 0).float().mean()
        self.dead_frac.mul_(1 - self.momentum).add_(self.momentum * frac)


class BasicBlock(nn.Module):
    def __init__(self, in_ch, out_ch, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_ch)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_ch != out_ch:
            self.shortcut = nn.Sequential(nn.Conv2d(in_ch, out_ch, 1, stride, bias=False),
                                          nn.BatchNorm2d(out_ch))

    def forward(self, x):
        out = self.bn1(self.conv1(x))
        self.relu(out)
        out = self.bn2(self.conv2(out))
        out = out + self.shortcut(x)
        self.relu(out)
        return out


class TinyResNet(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16),
                                  nn.ReLU(inplace=True))
        self.layer1 = BasicBlock(16, 16)
        self.layer2 = BasicBlock(16, 32, stride=2)
        self.monitor = ActivationMonitor()
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        self.monitor(x)
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def train(model, loader, optimizer, criterion, epochs=2):
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f} dead {model.monitor.dead_frac.item():.3f}")


def main():
    torch.manual_seed(0)
    x = torch.randn(16, 3, 16, 16)
    y = torch.randint(0, 4, (16,))
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)
    model = TinyResNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    train(model, loader, optimizer, nn.CrossEntropyLoss())
    model.eval()
    with torch.no_grad():
        feats = model.layer2(model.layer1(model.stem(x)))
    assert (feats >= 0).all()
    assert model.monitor.dead_frac.item() > 0


if __name__ == "__main__":
    main()
    print("OK")
