"""GG604 look-alike - weights changed after the optimizer was built, correctly.

A resume-from-checkpoint routine constructs the model and optimizer first and
only then loads the saved weights with model.load_state_dict(...) and moves
the model with .to(device).  load_state_dict copies values into the existing
Parameter objects (and .to() on the same device is a no-op), so the optimizer
still owns the live parameters and training continues normally.  Runs cleanly.

Modelled on: none found (correct counterpart of the replaced-head bug)
"""
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"lr": 1e-2, "epochs": 2, "ckpt_dir": None, "device": "cpu"}


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
        self.fc = nn.Linear(8 * 4, 4)

    def forward(self, x):
        return self.fc(self.backbone(x).flatten(1))


def build(cfg):
    model = ConvNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    return model, optimizer, scheduler


def maybe_resume(model, optimizer, ckpt_path, device):
    if os.path.exists(ckpt_path):
        state = torch.load(ckpt_path, map_location=device)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        print(f"resumed from epoch {state['epoch']}")
        return state["epoch"] + 1
    return 0


def train_one_epoch(model, loader, optimizer, device):
    model.train()
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    cfg = dict(CONFIG, ckpt_dir=tempfile.mkdtemp())
    ckpt = os.path.join(cfg["ckpt_dir"], "last.pt")
    loader = DataLoader(TensorDataset(torch.randn(32, 3, 8, 8), torch.randint(0, 4, (32,))), batch_size=8)

    model, optimizer, scheduler = build(cfg)
    train_one_epoch(model, loader, optimizer, cfg["device"])
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 0}, ckpt)

    model, optimizer, scheduler = build(cfg)
    start = maybe_resume(model, optimizer, ckpt, cfg["device"])
    model = model.to(cfg["device"])
    fc_before = model.fc.weight.detach().clone()
    for epoch in range(start, start + cfg["epochs"]):
        loss = train_one_epoch(model, loader, optimizer, cfg["device"])
        scheduler.step()
        print(f"epoch {epoch}: loss {loss:.4f} lr {scheduler.get_last_lr()[0]:.4f}")
    assert not torch.equal(fc_before, model.fc.weight)


if __name__ == "__main__":
    main()
    print("OK")
