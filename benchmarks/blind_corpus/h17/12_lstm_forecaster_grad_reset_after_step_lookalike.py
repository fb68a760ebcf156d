"""GG601 look-alike - no optimizer.zero_grad() at the top of the step, yet gradients are cleared.

The forecaster's Trainer never calls optimizer.zero_grad() before backward.
Instead, after every optimizer.step() it calls a helper that resets the
model's gradients (model.zero_grad(set_to_none=True)), so each backward
starts from clean gradients.  Checked below: the gradients seen at every
step equal those of that batch alone.

Modelled on: none found (trainer with post-step gradient reset)
"""
import copy
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Forecaster(nn.Module):
    def __init__(self, n_features=3, hidden=16, horizon=2):
        super().__init__()
        self.lstm = nn.LSTM(n_features, hidden, num_layers=1, batch_first=True)
        self.head = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, horizon))

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


class Trainer:
    def __init__(self, model, lr=1e-2, patience=2, ckpt_dir=None):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=1, gamma=0.9)
        self.criterion = nn.MSELoss()
        self.patience = patience
        self.ckpt_dir = ckpt_dir
        self.best = float("inf")
        self.bad_epochs = 0
        self.grad_log = []

    def _reset_grads(self):
        self.model.zero_grad(set_to_none=True)

    def train_step(self, x, y):
        loss = self.criterion(self.model(x), y)
        loss.backward()
        self.grad_log.append(self.model.head[2].weight.grad.clone())
        nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        self._reset_grads()
        return loss.item()

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        total = sum(self.criterion(self.model(x), y).item() for x, y in loader)
        self.model.train()
        return total / len(loader)

    def fit(self, train_loader, val_loader, epochs):
        self._reset_grads()
        for epoch in range(epochs):
            self.model.train()
            tr = sum(self.train_step(x, y) for x, y in train_loader) / len(train_loader)
            val = self.validate(val_loader)
            self.scheduler.step()
            print(f"epoch {epoch}: train {tr:.4f} val {val:.4f}")
            if val < self.best:
                self.best, self.bad_epochs = val, 0
                torch.save(self.model.state_dict(), os.path.join(self.ckpt_dir, "best.pt"))
            else:
                self.bad_epochs += 1
                if self.bad_epochs >= self.patience:
                    print("early stopping")
                    break


def main():
    torch.manual_seed(0)
    x = torch.randn(40, 10, 3)
    y = torch.randn(40, 2)
    train_loader = DataLoader(TensorDataset(x[:32], y[:32]), batch_size=8)
    val_loader = DataLoader(TensorDataset(x[32:], y[32:]), batch_size=8)
    model = Forecaster()
    with tempfile.TemporaryDirectory() as tmp:
        trainer = Trainer(model, ckpt_dir=tmp)
        # check: gradients of the second step are those of the second batch only
        snapshot = copy.deepcopy(model)
        trainer.optimizer.param_groups[0]["lr"] = 0.0
        for xb, yb in list(train_loader)[:2]:
            trainer.train_step(xb, yb)
        ref = copy.deepcopy(snapshot)
        nn.MSELoss()(ref(x[8:16]), y[8:16]).backward()
        assert torch.allclose(trainer.grad_log[1], ref.head[2].weight.grad, atol=1e-6)
        trainer.optimizer.param_groups[0]["lr"] = 1e-2
        trainer.fit(train_loader, val_loader, epochs=3)


if __name__ == "__main__":
    main()
    print("OK")
