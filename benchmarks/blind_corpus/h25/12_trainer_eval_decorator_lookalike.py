"""GG204 look-alike - evaluation loop that collects outputs, but under @torch.no_grad().

A Trainer class with train_epoch / evaluate / early stopping.  evaluate() has
no `with torch.no_grad():` block inside and keeps every batch's predictions in
a list -- the textbook shape of an evaluation loop leaking graphs.  The method
is, however, decorated with `@torch.no_grad()`, so no graph is recorded and
the collected predictions do not require grad.

Modelled on: https://github.com/pytorch/pytorch/issues/4932 (correct counterpart)
"""
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"in_dim": 10, "hidden": 32, "epochs": 4, "batch_size": 16, "lr": 1e-2, "patience": 2}


class Regressor(nn.Module):
    def __init__(self, in_dim, hidden):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, hidden), nn.GELU(), nn.Dropout(0.1),
                                  nn.Linear(hidden, hidden), nn.GELU())
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.head(self.body(x)).squeeze(-1)


class Trainer:
    def __init__(self, model, train_loader, val_loader, ckpt_dir, cfg):
        self.model, self.cfg = model, cfg
        self.train_loader, self.val_loader = train_loader, val_loader
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
        self.criterion = nn.MSELoss()
        self.ckpt_path = os.path.join(ckpt_dir, "best.pt")
        self.best, self.bad_epochs = float("inf"), 0

    def train_epoch(self):
        self.model.train()
        total = 0.0
        for x, y in self.train_loader:
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            total += loss.item() * x.size(0)
        return total / len(self.train_loader.dataset)

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        preds, targets = [], []
        for x, y in self.val_loader:
            preds.append(self.model(x))
            targets.append(y)
        preds, targets = torch.cat(preds), torch.cat(targets)
        return self.criterion(preds, targets).item(), preds

    def fit(self):
        for epoch in range(self.cfg["epochs"]):
            train_loss = self.train_epoch()
            val_loss, preds = self.evaluate()
            assert not preds.requires_grad
            print(f"epoch {epoch}: train={train_loss:.4f} val={val_loss:.4f}")
            if val_loss < self.best:
                self.best, self.bad_epochs = val_loss, 0
                torch.save(self.model.state_dict(), self.ckpt_path)
            else:
                self.bad_epochs += 1
                if self.bad_epochs >= self.cfg["patience"]:
                    print("early stopping")
                    break
        return self.best


def main():
    torch.manual_seed(0)
    x = torch.randn(96, CONFIG["in_dim"])
    y = x[:, :3].sum(1) + 0.1 * torch.randn(96)
    train_loader = DataLoader(TensorDataset(x[:64], y[:64]), batch_size=CONFIG["batch_size"], shuffle=True)
    val_loader = DataLoader(TensorDataset(x[64:], y[64:]), batch_size=CONFIG["batch_size"])
    with tempfile.TemporaryDirectory() as d:
        trainer = Trainer(Regressor(CONFIG["in_dim"], CONFIG["hidden"]), train_loader, val_loader, d, CONFIG)
        print(f"best val {trainer.fit():.4f}")


if __name__ == "__main__":
    main()
    print("OK")
