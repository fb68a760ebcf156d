"""GG102 - backward() called on a Python float returned by a loss helper.

`compute_loss` returns `float(loss)` so that the caller can log it easily; the caller
then calls `.backward()` on that number. The graph was thrown away by float(), and
Python raises:
AttributeError: 'float' object has no attribute 'backward'
"""
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def progress(iterable, desc=""):
    """Minimal tqdm-like wrapper."""
    total = len(iterable)
    for i, item in enumerate(iterable):
        if i % 2 == 0:
            print(f"{desc} {i + 1}/{total}")
        yield item


def build_model(n_features):
    return nn.Sequential(
        nn.Linear(n_features, 64), nn.GELU(),
        nn.LayerNorm(64),
        nn.Linear(64, 1),
    )


def compute_loss(model, batch, criterion):
    features, target = batch
    pred = model(features).squeeze(-1)
    loss = criterion(pred, target)
    return float(loss)


def train(model, loader, optimizer, criterion, epochs=2):
    metrics = []
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for step, batch in enumerate(progress(loader, desc=f"epoch {epoch}")):
            optimizer.zero_grad(set_to_none=True)
            loss = compute_loss(model, batch, criterion)
            if not math.isfinite(loss):
                raise ValueError(f"loss diverged at step {step}")
            loss.backward()  # bug: GG102
            optimizer.step()
            total += loss
        metrics.append({"epoch": epoch, "mse": total / len(loader)})
    return metrics


def main():
    torch.manual_seed(0)
    x = torch.randn(48, 10)
    y = x @ torch.randn(10) + 0.1 * torch.randn(48)
    loader = DataLoader(TensorDataset(x, y), batch_size=12, shuffle=True)
    model = build_model(10)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for m in train(model, loader, optimizer, nn.MSELoss()):
        print(f"epoch {m['epoch']}: mse={m['mse']:.4f}")


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, AttributeError) as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
