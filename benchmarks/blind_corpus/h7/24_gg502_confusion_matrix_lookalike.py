"""GG502 look-alike (correct code) - .numpy() calls that are all legal.

A classifier's validation helper builds a confusion matrix with NumPy.  It calls
``.numpy()`` on the model output, which looks like the "numpy() on a tensor that
requires grad" mistake, but the helper is decorated with ``@torch.no_grad()``
so the logits carry no graph.  Elsewhere ``.numpy()`` is called on labels (no
grad) and on ``loss.detach()``; the per-epoch weight snapshot uses
``.detach().cpu().numpy()``.

Modelled on: https://github.com/fastai/course-v3/issues/455 (the ``no_grad``
workaround given in that thread)
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

NUM_CLASSES = 3


def build():
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, NUM_CLASSES))


@torch.no_grad()
def confusion(model, loader):
    model.eval()
    cm = np.zeros((NUM_CLASSES, NUM_CLASSES), dtype=np.int64)
    for x, y in loader:
        pred = model(x).numpy().argmax(axis=1)
        np.add.at(cm, (y.numpy(), pred), 1)
    model.train()
    return cm


def main():
    torch.manual_seed(0)
    x = torch.randn(40, 8)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 1).long()
    train_dl = DataLoader(TensorDataset(x[:32], y[:32]), batch_size=8, shuffle=True)
    val_dl = DataLoader(TensorDataset(x[32:], y[32:]), batch_size=8)
    model = build()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses, snapshots = [], []
    for epoch in range(3):
        for xb, yb in train_dl:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.detach().numpy())
        snapshots.append(model[0].weight.detach().cpu().numpy().copy())
        cm = confusion(model, val_dl)
        print(f"epoch {epoch}: loss {np.mean(losses[-4:]):.3f} acc {np.trace(cm) / cm.sum():.2f}")
    drift = np.abs(snapshots[-1] - snapshots[0]).mean()
    assert drift > 0
    print(f"weight drift {drift:.4f}")


if __name__ == "__main__":
    main()
    print("OK")
