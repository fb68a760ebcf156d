"""GG502 look-alike - .numpy() on model outputs that are safe to convert.

A classifier's validation helper collects logits and converts them with
``.cpu().numpy()`` to build a confusion matrix in numpy.  It looks like the
classic "numpy() on a tensor that requires grad" mistake, but the forward pass
runs inside ``torch.no_grad()`` (and the feature dump uses a function
decorated with ``@torch.inference_mode()``), so the outputs do not require
grad and the conversion is legal.  Runs cleanly.

Modelled on: https://github.com/XiaMooo/Yolo-Detect-Layer-Visualization/issues/1 (correct variant)
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

NUM_CLASSES = 4


class SmallCNN(nn.Module):
    def __init__(self, n_classes=NUM_CLASSES):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(16, n_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def confusion(preds, targets, n):
    m = np.zeros((n, n), dtype=np.int64)
    for p, t in zip(preds, targets):
        m[t, p] += 1
    return m


def evaluate(model, loader):
    model.eval()
    all_logits, all_targets = [], []
    with torch.no_grad():
        for x, y in loader:
            logits = model(x)
            all_logits.append(logits.cpu().numpy())
            all_targets.append(y.cpu().numpy())
    logits = np.concatenate(all_logits)
    targets = np.concatenate(all_targets)
    preds = logits.argmax(1)
    return (preds == targets).mean(), confusion(preds, targets, NUM_CLASSES)


@torch.inference_mode()
def dump_features(model, x):
    return model.features(x).flatten(1).numpy()


def train_one_epoch(model, loader, optimizer, criterion):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    x = torch.randn(48, 3, 16, 16)
    y = torch.randint(0, NUM_CLASSES, (48,))
    loader = DataLoader(TensorDataset(x, y), batch_size=12)
    model = SmallCNN()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    crit = nn.CrossEntropyLoss()
    for epoch in range(2):
        loss = train_one_epoch(model, loader, opt, crit)
        acc, cm = evaluate(model, loader)
        print(f"epoch {epoch} loss={loss:.3f} acc={acc:.2f} diag={cm.diagonal().tolist()}")
    feats = dump_features(model, x[:4])
    assert feats.shape == (4, 16)


if __name__ == "__main__":
    main()
    print("OK")
