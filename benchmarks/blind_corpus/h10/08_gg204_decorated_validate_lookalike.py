"""GG204 look-alike: validation loop with no ``with torch.no_grad():`` block.

The ``validate`` method of this trainer loops over the validation loader, calls
the model and keeps every batch's outputs for the epoch metric, with no
``with torch.no_grad():`` anywhere in the loop body.  It is correct anyway: the
whole method is decorated with ``@torch.no_grad()``, so no graph is recorded
and the stored outputs do not require grad.  The trainer also does early
stopping and saves the best checkpoint to a temporary directory.
Modelled on: none (counter-example to https://www.stubbornhuang.com/2322/?noamp=mobile)
"""
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class MLPRegressor(nn.Module):
    def __init__(self, in_dim=12, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, hidden), nn.GELU(), nn.Dropout(0.1),
                                  nn.Linear(hidden, hidden), nn.GELU(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.body(x).squeeze(-1)


class Trainer:
    def __init__(self, model, optimizer, criterion, ckpt_dir, patience=2):
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion
        self.ckpt_path = os.path.join(ckpt_dir, "best.pt")
        self.patience = patience
        self.best = float("inf")
        self.bad_epochs = 0

    def train_epoch(self, loader):
        self.model.train()
        total = 0.0
        for x, y in loader:
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            total += loss.item() * x.size(0)
        return total / len(loader.dataset)

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        preds, targets = [], []
        for x, y in loader:
            out = self.model(x)
            preds.append(out)
            targets.append(y)
        preds, targets = torch.cat(preds), torch.cat(targets)
        assert not preds.requires_grad
        return self.criterion(preds, targets).item(), preds

    def fit(self, train_loader, val_loader, epochs):
        for epoch in range(epochs):
            tr = self.train_epoch(train_loader)
            val, _ = self.validate(val_loader)
            print(f"epoch {epoch}: train {tr:.4f} val {val:.4f}")
            if val < self.best:
                self.best, self.bad_epochs = val, 0
                torch.save(self.model.state_dict(), self.ckpt_path)
            else:
                self.bad_epochs += 1
                if self.bad_epochs >= self.patience:
                    print("early stopping")
                    break


def main():
    torch.manual_seed(0)
    w = torch.randn(12)
    xs = torch.randn(160, 12)
    ys = xs @ w + 0.1 * torch.randn(160)
    train_loader = DataLoader(TensorDataset(xs[:128], ys[:128]), batch_size=32, shuffle=True)
    val_loader = DataLoader(TensorDataset(xs[128:], ys[128:]), batch_size=16)
    model = MLPRegressor()
    with tempfile.TemporaryDirectory() as tmp:
        trainer = Trainer(model, torch.optim.Adam(model.parameters(), lr=3e-3), nn.MSELoss(), tmp)
        trainer.fit(train_loader, val_loader, epochs=3)
        assert os.path.exists(trainer.ckpt_path)


if __name__ == "__main__":
    main()
    print("OK")
