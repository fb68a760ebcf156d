"""GG111 - raw logits given to BCELoss (fixed).

The model still returns logits; the criterion is switched to nn.BCEWithLogitsLoss, which
applies the sigmoid internally in a numerically stable way.
"""
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class FraudNet(nn.Module):
    def __init__(self, n_features, hidden=32):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(n_features, hidden),
            nn.BatchNorm1d(hidden),
            nn.ReLU(),
            nn.Dropout(0.1),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
        )
        self.score = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.score(self.body(x)).squeeze(-1)


def make_loader(n=512, n_features=12, batch_size=64):
    x = torch.randn(n, n_features) * 2.0
    y = ((x[:, 0] + 0.5 * x[:, 3] - x[:, 7]) > 1.0).float()
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=True)


def train(model, loader, optimizer, criterion, device, epochs=3):
    model.to(device)
    for epoch in range(epochs):
        model.train()
        epoch_loss = 0.0
        for i, (features, labels) in enumerate(loader):
            features, labels = features.to(device), labels.to(device)
            scores = model(features)
            loss = criterion(scores, labels)  # fixed: GG111
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
        print(f"epoch {epoch} mean loss {epoch_loss / (i + 1):.4f}")
    return model


@torch.no_grad()
def precision_recall(model, loader, threshold=0.5):
    model.eval()
    tp = fp = fn = 0
    for features, labels in loader:
        pred = (torch.sigmoid(model(features)) > threshold).float()
        tp += (pred * labels).sum().item()
        fp += (pred * (1 - labels)).sum().item()
        fn += ((1 - pred) * labels).sum().item()
    return tp / max(tp + fp, 1), tp / max(tp + fn, 1)


def main():
    torch.manual_seed(3)
    device = torch.device("cpu")
    loader = make_loader()
    model = FraudNet(12)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    criterion = nn.BCEWithLogitsLoss()
    train(model, loader, optimizer, criterion, device)
    p, r = precision_recall(model, loader)
    print(f"precision {p:.3f} recall {r:.3f}")
    with tempfile.TemporaryDirectory() as tmp:
        torch.save(model.state_dict(), os.path.join(tmp, "fraud.pt"))


if __name__ == "__main__":
    main()
    print("FIXED: ok")
