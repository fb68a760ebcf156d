"""GG302 look-alike - in-place ReLU and in-place shortcut add in the safe (torchvision) order.

Same kind of ResNet BasicBlock, with `nn.ReLU(inplace=True)` and `out += identity`.
Here the addition modifies the output of BatchNorm (BatchNorm's backward uses
its saved input and statistics, not its output) and the in-place ReLU comes
*after* the addition, so no tensor saved for backward is overwritten.  A
AMP-style loop (GradScaler disabled on CPU) drives it.

Modelled on: https://github.com/pytorch/pytorch/issues/5687 (correct counterpart)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CFG = {"width": 8, "classes": 5, "epochs": 2, "batch": 6, "lr": 0.05}


class BasicBlock(nn.Module):
    def __init__(self, planes):
        super().__init__()
        self.conv1 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        out = self.relu(out)
        return out


class TinyResNet(nn.Module):
    def __init__(self, width, classes):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU(inplace=True))
        self.blocks = nn.Sequential(BasicBlock(width), BasicBlock(width))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width, classes))

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))


def run_epoch(model, loader, optimizer, scaler, criterion):
    model.train()
    losses = []
    for images, labels in loader:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", enabled=False):
            loss = criterion(model(images), labels)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.item())
    return sum(losses) / len(losses)


def main():
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(18, 3, 8, 8), torch.randint(0, CFG["classes"], (18,)))
    loader = DataLoader(ds, batch_size=CFG["batch"], shuffle=True)
    model = TinyResNet(CFG["width"], CFG["classes"])
    optimizer = torch.optim.SGD(model.parameters(), lr=CFG["lr"], momentum=0.9)
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    for epoch in range(CFG["epochs"]):
        print(f"epoch {epoch}: loss={run_epoch(model, loader, optimizer, scaler, criterion):.4f}")


if __name__ == "__main__":
    main()
    print("OK")
