"""Category GG302 - in-place change of a tensor saved for backward, before backward().

The pre-activation residual block starts its residual branch with
``nn.ReLU(inplace=True)``. In a down-sampling block the projection shortcut
(a strided 1x1 conv) is applied to ``x`` first and saves ``x`` for its weight
gradient; the in-place ReLU then overwrites ``x``. backward() notices the
version bump and raises
    RuntimeError: one of the variables needed for gradient computation has been
    modified by an inplace operation: ... is at version 1; expected version 0 instead ...
Modelled on: https://github.com/pytorch/pytorch/issues/15428
(This file: buggy version.)
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
cfg = {"widths": [8, 16, 32], "n_classes": 10, "batch": 4, "lr": 0.05, "wd": 5e-4, "epochs": 1}


class Block(nn.Module):
    def __init__(self, in_chan, out_chan, stride=1):
        super().__init__()
        self.in_chan, self.out_chan, self.stride = in_chan, out_chan, stride
        self.residual = nn.Sequential(
            nn.ReLU(inplace=True),  # bug: GG302
            nn.Conv2d(in_chan, out_chan, 3, stride, 1, bias=False),
            nn.BatchNorm2d(out_chan),
            nn.ReLU(),
            nn.Conv2d(out_chan, out_chan, 3, 1, 1, bias=False),
            nn.BatchNorm2d(out_chan),
        )
        if stride != 1 or in_chan != out_chan:
            self.shortcut = nn.Conv2d(in_chan, out_chan, 1, stride, bias=False)

    def forward(self, x):
        if not self.stride == 1 or not self.in_chan == self.out_chan:
            sc = self.shortcut(x)
        else:
            sc = x
        resd = self.residual(x)
        return resd + sc


class PreActNet(nn.Module):
    def __init__(self, widths, n_classes):
        super().__init__()
        self.stem = nn.Conv2d(3, widths[0], 3, 1, 1, bias=False)
        blocks, c = [], widths[0]
        for i, w in enumerate(widths):
            blocks.append(Block(c, w, stride=1 if i == 0 else 2))
            c = w
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(c, n_classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        x = F.adaptive_avg_pool2d(F.relu(x), 1).flatten(1)
        return self.fc(x)


def train_one_epoch(model, loader, criterion, optimizer, scheduler):
    model.train()
    for it, (im, lb) in enumerate(loader):
        im, lb = im.to(device), lb.to(device)
        optimizer.zero_grad()
        loss = criterion(model(im), lb)
        loss.backward()
        optimizer.step()
        scheduler.step()
        print(f"iter {it} lr {scheduler.get_last_lr()[0]:.4f} loss {loss.item():.4f}")


def main(argv=None):
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(12, 3, 16, 16), torch.randint(0, cfg["n_classes"], (12,)))
    loader = DataLoader(ds, batch_size=cfg["batch"], shuffle=True)
    model = PreActNet(cfg["widths"], cfg["n_classes"]).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9, weight_decay=cfg["wd"])
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=len(loader) * cfg["epochs"])
    for _ in range(cfg["epochs"]):
        train_one_epoch(model, loader, nn.CrossEntropyLoss(), optimizer, scheduler)
    with tempfile.TemporaryDirectory() as d:
        torch.save(model.state_dict(), os.path.join(d, "preact.pt"))


if __name__ == "__main__":
    try:
        main([])
    except RuntimeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        raise SystemExit(0)
    raise SystemExit("NO BUG")
