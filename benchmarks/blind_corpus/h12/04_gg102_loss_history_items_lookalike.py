"""GG102 look-alike - .item()/float()/.tolist() used only for bookkeeping.

A Trainer keeps a history of scalar losses and per-class accuracies. It calls
.item() right after computing the loss, converts per-class counts with .tolist(),
and stores float(...) values for early stopping, but backward() is always called
on the loss *tensor*. Correct code.

Modelled on: none found (typical Trainer bookkeeping).
"""
import math
import os
import tempfile
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class ConvNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(16, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


class Trainer:
    def __init__(self, model, optimizer, criterion, patience=3):
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion
        self.history = {"train_loss": [], "val_loss": [], "per_class": []}
        self.best = math.inf
        self.bad_epochs = 0
        self.patience = patience

    def train_step(self, x, y):
        self.model.train()
        logits = self.model(x)
        loss = self.criterion(logits, y)
        loss_value = loss.item()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss_value

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        total, n = 0.0, 0
        correct = torch.zeros(3)
        for x, y in loader:
            logits = self.model(x)
            total += float(self.criterion(logits, y)) * len(y)
            n += len(y)
            hits = (logits.argmax(1) == y).float()
            correct.index_add_(0, y, hits)
        self.history["per_class"].append(correct.tolist())
        return total / n

    def fit(self, train_loader, val_loader, epochs, ckpt_dir):
        for epoch in range(epochs):
            losses = [self.train_step(x, y) for x, y in train_loader]
            self.history["train_loss"].append(sum(losses) / len(losses))
            val = self.validate(val_loader)
            self.history["val_loss"].append(val)
            if val < self.best:
                self.best, self.bad_epochs = val, 0
                torch.save(self.model.state_dict(), os.path.join(ckpt_dir, "best.pt"))
            else:
                self.bad_epochs += 1
                if self.bad_epochs >= self.patience:
                    break
        return self.history


def main():
    torch.manual_seed(2)
    x, y = torch.randn(48, 1, 8, 8), torch.randint(0, 3, (48,))
    train_loader = DataLoader(TensorDataset(x[:32], y[:32]), batch_size=8, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[32:], y[32:]), batch_size=8)
    model = ConvNet()
    trainer = Trainer(model, torch.optim.Adam(model.parameters(), 1e-3), nn.CrossEntropyLoss())
    with tempfile.TemporaryDirectory() as d:
        hist = trainer.fit(train_loader, val_loader, epochs=3, ckpt_dir=d)
        assert os.path.exists(os.path.join(d, "best.pt"))
    print(f"train {hist['train_loss'][-1]:.3f} val {hist['val_loss'][-1]:.3f}")


if __name__ == "__main__":
    main()
    print("OK")
