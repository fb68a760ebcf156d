"""GG112 (fixed) - non-reentrant checkpointing, which works without input grads.

A memory-saving ResNet-ish model checkpoints every stage, including the first,
with torch.utils.checkpoint.checkpoint(...). The first stage
gets the raw image batch, which does not require grad. With use_reentrant=False
(the recommended variant) the stages' parameters are still tracked, so every
stage receives gradients and is updated.

Modelled on: https://github.com/Lyken17/pytorch-memonger/issues/4
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint
from torch.utils.data import DataLoader, TensorDataset

warnings.filterwarnings("ignore", message="None of the inputs have requires_grad=True")

CFG = {"widths": (8, 16, 32), "n_cls": 4, "lr": 0.05, "epochs": 2, "bs": 8, "memory_efficient": True}


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + self.short(x))


class MemEfficientResNet(nn.Module):
    def __init__(self, widths, n_cls, memory_efficient=True):
        super().__init__()
        cin, stages = 3, []
        for i, w in enumerate(widths):
            stages.append(BasicBlock(cin, w, 1 if i == 0 else 2))
            cin = w
        self.stages = nn.ModuleList(stages)
        self.fc = nn.Linear(cin, n_cls)
        self.memory_efficient = memory_efficient

    def forward(self, x):
        out = x
        for stage in self.stages:
            if self.memory_efficient and self.training:
                out = checkpoint(stage, out, use_reentrant=False)  # fixed: GG112
            else:
                out = stage(out)
        return self.fc(F.adaptive_avg_pool2d(out, 1).flatten(1))


def train(model, loader, optimizer, criterion, epochs):
    for epoch in range(epochs):
        model.train()
        for images, labels in loader:
            loss = criterion(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    model = MemEfficientResNet(CFG["widths"], CFG["n_cls"], CFG["memory_efficient"])
    ds = TensorDataset(torch.randn(32, 3, 16, 16), torch.randint(0, CFG["n_cls"], (32,)))
    loader = DataLoader(ds, batch_size=CFG["bs"], shuffle=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=CFG["lr"], momentum=0.9)
    conv_before = model.stages[0].conv1.weight.detach().clone()
    train(model, loader, optimizer, nn.CrossEntropyLoss(), CFG["epochs"])
    stage_grads = [p.grad for p in model.stages.parameters()]
    conv_changed = not torch.equal(conv_before, model.stages[0].conv1.weight)
    return all(g is None for g in stage_grads), conv_changed


if __name__ == "__main__":
    no_grads, conv_changed = main()
    assert not no_grads and conv_changed
    print("FIXED: ok")
