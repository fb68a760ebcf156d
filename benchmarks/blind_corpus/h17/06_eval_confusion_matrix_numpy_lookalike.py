"""GG502 look-alike - model outputs converted with .numpy() inside evaluation.

The evaluation helper runs the classifier under torch.no_grad(), so the
probabilities and predictions it turns into numpy arrays carry no autograd
history even though the model's parameters require grad.  Calling .numpy()
on them is fine; the confusion matrix / ROC-AUC are then computed in numpy.

Modelled on: none found (standard sklearn-style evaluation code)
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--device", default="cpu")
    return ap.parse_args([])


class SmallCNN(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(16, n_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def binary_auc(scores, labels):
    order = np.argsort(-scores)
    labels = labels[order]
    pos, neg = labels.sum(), (1 - labels).sum()
    if pos == 0 or neg == 0:
        return float("nan")
    tps = np.cumsum(labels)
    return float(tps[labels == 0].sum() / (pos * neg))


def confusion_matrix(y_true, y_pred, n):
    cm = np.zeros((n, n), dtype=np.int64)
    np.add.at(cm, (y_true, y_pred), 1)
    return cm


def evaluate(model, loader, device):
    model.eval()
    all_probs, all_preds, all_labels = [], [], []
    with torch.no_grad():
        for x, y in loader:
            logits = model(x.to(device))
            probs = logits.softmax(dim=1)
            all_probs.append(probs[:, 1].cpu().numpy())
            all_preds.append(logits.argmax(dim=1).cpu().numpy())
            all_labels.append(y.numpy())
    probs = np.concatenate(all_probs)
    preds = np.concatenate(all_preds)
    labels = np.concatenate(all_labels)
    return {"auc": binary_auc(probs, labels), "cm": confusion_matrix(labels, preds, 2),
            "acc": float((preds == labels).mean())}


def train_one_epoch(model, loader, optimizer, criterion, device):
    model.train()
    running = []
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        running.append(loss.item())
    return float(np.mean(running))


def main():
    args = parse_args()
    torch.manual_seed(0)
    x = torch.randn(64, 1, 12, 12)
    y = (x.mean(dim=(1, 2, 3)) > 0).long()
    train_loader = DataLoader(TensorDataset(x[:48], y[:48]), batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[48:], y[48:]), batch_size=args.batch_size)
    model = SmallCNN().to(args.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        tr = train_one_epoch(model, train_loader, optimizer, criterion, args.device)
        metrics = evaluate(model, val_loader, args.device)
        print(f"epoch {epoch} loss {tr:.3f} acc {metrics['acc']:.2f} auc {metrics['auc']:.2f}")
        print(metrics["cm"])


if __name__ == "__main__":
    main()
    print("OK")
