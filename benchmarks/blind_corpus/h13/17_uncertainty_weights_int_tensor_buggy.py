"""Category GG402 - requires_grad=True on a tensor with an integer dtype.

The multi-task loss learns one log-variance per task (uncertainty weighting).
The initial values come from the config as Python ints (``[0, 0]``), so
``torch.tensor(init, requires_grad=True)`` infers int64 and torch refuses:
    RuntimeError: Only Tensors of floating point and complex dtype can require gradients
Modelled on: https://github.com/yunjey/pytorch-tutorial/pull/128
(This file: buggy version.)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {
    "model": {"in_dim": 12, "hidden": 32, "n_classes": 3},
    "loss": {"init_log_vars": [0, 0]},
    "optim": {"lr": 1e-3, "lr_loss_weights": 1e-2},
    "train": {"batch_size": 8, "epochs": 2},
}


class SharedNet(nn.Module):
    def __init__(self, in_dim, hidden, n_classes):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.cls = nn.Linear(hidden, n_classes)
        self.reg = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.trunk(x)
        return {"logits": self.cls(h), "value": self.reg(h).squeeze(1)}


class UncertaintyWeightedLoss:
    def __init__(self, init_log_vars):
        self.log_vars = torch.tensor(init_log_vars, requires_grad=True)  # bug: GG402

    def parameters(self):
        return [self.log_vars]

    def __call__(self, out, y_cls, y_reg):
        losses = {"cls": F.cross_entropy(out["logits"], y_cls), "reg": F.mse_loss(out["value"], y_reg)}
        total = 0.0
        for i, (name, l) in enumerate(losses.items()):
            total = total + torch.exp(-self.log_vars[i]) * l + self.log_vars[i]
        return total, {k: v.item() for k, v in losses.items()}


def build(cfg):
    model = SharedNet(**cfg["model"])
    criterion = UncertaintyWeightedLoss(cfg["loss"]["init_log_vars"])
    optimizer = torch.optim.Adam([
        {"params": model.parameters(), "lr": cfg["optim"]["lr"]},
        {"params": criterion.parameters(), "lr": cfg["optim"]["lr_loss_weights"]},
    ])
    return model, criterion, optimizer


def train(model, criterion, optimizer, loader, epochs):
    for epoch in range(epochs):
        for x, y_cls, y_reg in loader:
            optimizer.zero_grad()
            total, parts = criterion(model(x), y_cls, y_reg)
            total.backward()
            optimizer.step()
        weights = torch.exp(-criterion.log_vars.detach()).tolist()
        print(f"epoch {epoch} total {total.item():.3f} parts {parts} weights {weights}")


def main(argv=None):
    torch.manual_seed(0)
    n = 32
    ds = TensorDataset(torch.randn(n, 12), torch.randint(0, 3, (n,)), torch.randn(n))
    loader = DataLoader(ds, batch_size=CONFIG["train"]["batch_size"], shuffle=True)
    model, criterion, optimizer = build(CONFIG)
    train(model, criterion, optimizer, loader, CONFIG["train"]["epochs"])


if __name__ == "__main__":
    try:
        main([])
    except RuntimeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        raise SystemExit(0)
    raise SystemExit("NO BUG")
