"""FIXED version. Linear probe on hidden states: sigmoid output fed to BCEWithLogitsLoss.

Modelled on: https://github.com/AngelaZZZ-611/reasoning_models_probing/issues/1

The probe classifier applies `torch.sigmoid` to its output before returning
it, and the training script uses `nn.BCEWithLogitsLoss(pos_weight=...)`
(class-weighted) on that output.  The loss applies a second sigmoid, so the
effective probabilities live in [0.5, 0.73]: the loss cannot fall below
~0.31 for positives / ~0.69 for negatives and the probe learns poorly.
"""
import argparse

import torch
import torch.nn as nn


class Predictor(nn.Module):
    def __init__(self, hidden_size=16):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(hidden_size, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, h):
        return self.fc(h).squeeze(-1)  # logits


def load_hidden_states(n=128, hidden=16):
    h = torch.randn(n, hidden)
    y = (h[:, 0] > 0.3).float()
    return h, y


def class_weights(y):
    pos = y.sum().clamp(min=1)
    return (len(y) - pos) / pos


def train(model, h, y, epochs, lr):
    criterion = nn.BCEWithLogitsLoss(pos_weight=class_weights(y))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for _ in range(epochs):
        optimizer.zero_grad()
        outputs = model(h)
        loss = criterion(outputs, y)
        loss.backward()
        optimizer.step()
    return loss.item()


def evaluate(model, h, y):
    with torch.no_grad():
        prob = torch.sigmoid(model(h))
    return ((prob > 0.5).float() == y).float().mean().item(), prob.min().item()


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=150)
    p.add_argument("--lr", type=float, default=5e-2)
    args = p.parse_args(argv)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    h, y = load_hidden_states()
    model = Predictor()
    final = train(model, h, y, args.epochs, args.lr)
    acc, _ = evaluate(model, h, y)
    if final > 0.45:
        print(f"BUGGY: loss stuck at {final:.3f}: BCEWithLogitsLoss re-applies sigmoid to probabilities")
    else:
        print("FIXED: ok")


if __name__ == "__main__":
    main([])
