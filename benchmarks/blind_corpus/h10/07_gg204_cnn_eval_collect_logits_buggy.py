"""GG204: evaluation loop builds and keeps a graph for every batch.

Mistake: ``evaluate()`` switches the CNN to ``model.eval()`` but runs the
forward passes without ``torch.no_grad()``.  It collects the logits of every
validation batch in a list (to compute accuracy and a confusion matrix later),
so each stored tensor keeps the whole autograd graph of its batch, including
the saved activations, until evaluation ends (on a GPU: memory explodes during
validation, as in the report).
Silent effect, checked below: the concatenated validation logits still
``requires_grad`` and their graph reaches a conv node for every batch.
Modelled on: https://www.stubbornhuang.com/2322/?noamp=mobile
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--num-classes", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--device", default="cpu")
    return p.parse_args(argv)


class SmallCNN(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(16, num_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


def train_one_epoch(model, loader, optimizer, device):
    model.train()
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()


def evaluate(model, loader, device):
    model.eval()
    all_logits, all_labels = [], []
    for batch_idx, (images, labels) in enumerate(loader):  # bug: GG204
        logits = model(images.to(device))
        all_logits.append(logits)
        all_labels.append(labels)
    return torch.cat(all_logits), torch.cat(all_labels)


def confusion_matrix(preds, labels, k):
    cm = torch.zeros(k, k, dtype=torch.long)
    for p, t in zip(preds.tolist(), labels.tolist()):
        cm[t, p] += 1
    return cm


def main():
    args = parse_args([])
    torch.manual_seed(0)
    device = torch.device(args.device)
    train_ds = TensorDataset(torch.randn(64, 3, 16, 16), torch.randint(0, args.num_classes, (64,)))
    val_ds = TensorDataset(torch.randn(48, 3, 16, 16), torch.randint(0, args.num_classes, (48,)))
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=args.batch_size)
    model = SmallCNN(args.num_classes).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        train_one_epoch(model, train_loader, optimizer, device)
        logits, labels = evaluate(model, val_loader, device)
        preds = logits.argmax(1)
        acc = (preds == labels).float().mean().item()
        print(f"epoch {epoch}: val acc {acc:.3f}")
        print(confusion_matrix(preds, labels, args.num_classes))
    return logits, len(val_loader)


def conv_nodes(t):
    seen, stack, n = set(), [t.grad_fn], 0
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        n += type(fn).__name__.startswith("ConvolutionBackward")
        stack.extend(f for f, _ in fn.next_functions)
    return n


if __name__ == "__main__":
    val_logits, n_batches = main()
    if val_logits.requires_grad:
        assert conv_nodes(val_logits) == 2 * n_batches
        print(f"BUGGY: validation logits require grad; graphs of all {n_batches} val batches kept alive")
    else:
        raise SystemExit("NO BUG")
