"""GG502 - .numpy() on a tensor that requires grad.

The validation helper switches the model to eval() (which does not turn off
autograd) and converts the predicted probabilities to NumPy to compute a
rank-based ROC-AUC.  The probabilities come from the model, so they
require grad and the conversion fails:
RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
"""
import sys

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def roc_auc(scores, labels):
    order = np.argsort(scores)
    ranks = np.empty_like(order, dtype=np.float64)
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def evaluate(model, loader, device):
    model.eval()
    all_scores, all_labels = [], []
    for xb, yb in loader:
        probs = torch.sigmoid(model(xb.to(device))).squeeze(1)
        all_scores.append(probs.cpu().numpy())  # bug: GG502
        all_labels.append(yb.numpy())
    model.train()
    return roc_auc(np.concatenate(all_scores), np.concatenate(all_labels))


def train_one_epoch(model, loader, optimizer, criterion, device):
    total = 0.0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device).float()
        optimizer.zero_grad()
        loss = criterion(model(xb).squeeze(1), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)
    return total / len(loader.dataset)


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    x = torch.randn(120, 6)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).long()
    train_loader = DataLoader(TensorDataset(x[:80], y[:80]), batch_size=16, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[80:], y[80:]), batch_size=20)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 1)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    criterion = nn.BCEWithLogitsLoss()
    best_auc = 0.0
    for epoch in range(3):
        tr_loss = train_one_epoch(model, train_loader, optimizer, criterion, device)
        auc = evaluate(model, val_loader, device)
        best_auc = max(best_auc, auc)
        print(f"epoch {epoch}: train_loss={tr_loss:.4f} val_auc={auc:.3f}")


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
