"""GG402 - requires_grad=True on a tensor with an integer dtype.

FIXED version. Original mistake: an ordinal "star rating" regressor.  The user wants an MSE between the
predicted rating and the true rating, so the loss helper takes the class index
from ``logits.max(dim=1)`` and, seeing that it has no gradient, flags it with
``pred.requires_grad = True``.  The indices returned by ``max`` are int64.

torch raised (buggy version): RuntimeError: only Tensors of floating point and
complex dtype can require gradients
Fix: use the differentiable expected rating (softmax-weighted level) instead.

Modelled on: https://github.com/pytorch/pytorch/issues/95110
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def get_config():
    parser = argparse.ArgumentParser()
    parser.add_argument("--features", type=int, default=10)
    parser.add_argument("--levels", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--patience", type=int, default=3)
    return parser.parse_args([])


class RatingNet(nn.Module):
    def __init__(self, n_features, n_levels):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_features, 32), nn.ReLU(), nn.Dropout(0.1),
            nn.Linear(32, 32), nn.ReLU(),
            nn.Linear(32, n_levels),
        )

    def forward(self, x):
        return self.net(x)


def ordinal_loss(logits, ratings):
    """Penalise predictions by how many stars they are off."""
    probs = logits.softmax(dim=1)
    pred = probs @ torch.arange(logits.size(1), dtype=probs.dtype)  # fixed: GG402
    return F.mse_loss(pred.float(), ratings.float())


def train_one_epoch(model, loader, optimizer):
    model.train()
    total, n = 0.0, 0
    for x, y in loader:
        optimizer.zero_grad()
        loss = ordinal_loss(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(y)
        n += len(y)
    return total / n


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    errs = [(model(x).argmax(1) - y).abs().float().mean().item() for x, y in loader]
    return sum(errs) / len(errs)


def main():
    cfg = get_config()
    torch.manual_seed(0)
    x = torch.randn(40, cfg.features)
    y = torch.randint(0, cfg.levels, (40,))
    train_loader = DataLoader(TensorDataset(x[:32], y[:32]), batch_size=8, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[32:], y[32:]), batch_size=8)
    model = RatingNet(cfg.features, cfg.levels)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    best, bad_epochs = float("inf"), 0
    for epoch in range(cfg.epochs):
        tr = train_one_epoch(model, train_loader, optimizer)
        mae = evaluate(model, val_loader)
        print(f"epoch {epoch}: train {tr:.3f} val MAE {mae:.3f}")
        if mae < best:
            best, bad_epochs = mae, 0
        else:
            bad_epochs += 1
            if bad_epochs >= cfg.patience:
                break


if __name__ == "__main__":
    main()
    print("FIXED: ok")
