"""GG106 look-alike - inference_mode for dataset statistics and validation only.

Feature mean/std are computed once under torch.inference_mode() and used to
normalise the raw inputs (which never require grad, so autograd saves nothing
from them), and validation runs under inference_mode too, with only Python
floats leaving the block.  Every tensor autograd saves during training comes
from normal mode.  Prints OK.

Modelled on: none found
"""
import copy
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SETTINGS = {"n_features": 8, "hidden": 32, "lr": 1e-2, "epochs": 4, "patience": 2, "batch_size": 16}


class Regressor(nn.Module):
    def __init__(self, n_features, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def feature_stats(x):
    with torch.inference_mode():
        mean = x.mean(0)
        std = x.std(0).clamp_min(1e-6)
    return mean, std


def evaluate(model, loader, mean, std):
    model.eval()
    total, n = 0.0, 0
    with torch.inference_mode():
        for xb, yb in loader:
            pred = model((xb - mean) / std)
            total += nn.functional.mse_loss(pred, yb, reduction="sum").item()
            n += len(yb)
    model.train()
    return total / n


def train(model, train_loader, val_loader, mean, std, settings, ckpt_path):
    optimizer = torch.optim.Adam(model.parameters(), lr=settings["lr"])
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=1)
    best, best_state, bad_epochs = float("inf"), None, 0
    for epoch in range(settings["epochs"]):
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model((xb - mean) / std), yb)
            loss.backward()
            optimizer.step()
        val = evaluate(model, val_loader, mean, std)
        scheduler.step(val)
        print(f"epoch {epoch}: train={loss.item():.4f} val={val:.4f}")
        if val < best:
            best, best_state, bad_epochs = val, copy.deepcopy(model.state_dict()), 0
            torch.save(best_state, ckpt_path)
        else:
            bad_epochs += 1
            if bad_epochs >= settings["patience"]:
                print("early stopping")
                break
    return best


def main():
    torch.manual_seed(0)
    w = torch.randn(SETTINGS["n_features"])
    x = torch.randn(96, SETTINGS["n_features"]) * 3 + 1
    y = x @ w + 0.1 * torch.randn(96)
    mean, std = feature_stats(x[:64])
    train_loader = DataLoader(TensorDataset(x[:64], y[:64]), batch_size=SETTINGS["batch_size"], shuffle=True)
    val_loader = DataLoader(TensorDataset(x[64:], y[64:]), batch_size=32)
    model = Regressor(SETTINGS["n_features"], SETTINGS["hidden"])
    first = evaluate(model, val_loader, mean, std)
    best = train(model, train_loader, val_loader, mean, std, SETTINGS, os.path.join(tempfile.mkdtemp(), "best.pt"))
    assert best < first


if __name__ == "__main__":
    main()
    print("OK")
