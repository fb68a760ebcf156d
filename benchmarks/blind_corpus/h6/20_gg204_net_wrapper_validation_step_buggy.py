"""GG204 (buggy): a fit()/predict() wrapper whose validation step tracks gradients.

Mistake: a small scikit-learn-style NeuralNet wrapper runs validation through
validation_step(), which calls the module in eval mode but without torch.no_grad().
run_single_epoch() keeps each step's y_pred to compute validation accuracy at the end
of the epoch, so every validation batch's graph stays alive for the whole pass (the
skorch users saw "out of memory" only in the validation phase).
Silent effect: no error; the stored validation predictions require grad and carry
a grad_fn.
Modelled on: https://github.com/skorch-dev/skorch/issues/218
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class PointNetLike(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.mlp = nn.Sequential(nn.Conv1d(3, 16, 1), nn.ReLU(), nn.Conv1d(16, 32, 1), nn.ReLU())
        self.fc = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.fc(self.mlp(x).max(dim=2).values)


class NeuralNet:
    def __init__(self, module, criterion=nn.CrossEntropyLoss, lr=0.01, max_epochs=2, batch_size=8):
        self.module = module
        self.criterion = criterion()
        self.optimizer = torch.optim.SGD(module.parameters(), lr=lr)
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.history = []
        self.last_valid_preds = []

    def infer(self, x):
        return self.module(x)

    def train_step(self, Xi, yi):
        self.module.train()
        self.optimizer.zero_grad()
        y_pred = self.infer(Xi)
        loss = self.criterion(y_pred, yi)
        loss.backward()
        self.optimizer.step()
        return {"loss": loss.detach(), "y_pred": y_pred.detach()}

    def validation_step(self, Xi, yi):
        self.module.eval()
        y_pred = self.infer(Xi)  # bug: GG204
        loss = self.criterion(y_pred, yi)
        return {"loss": loss, "y_pred": y_pred}

    def run_single_epoch(self, loader, training):
        step_fn = self.train_step if training else self.validation_step
        losses, preds, targets = [], [], []
        for Xi, yi in loader:
            step = step_fn(Xi, yi)
            losses.append(step["loss"].item())
            preds.append(step["y_pred"])
            targets.append(yi)
        acc = (torch.cat(preds).argmax(1) == torch.cat(targets)).float().mean().item()
        return float(np.mean(losses)), acc, preds

    def fit(self, X, y, X_valid, y_valid):
        train_loader = DataLoader(TensorDataset(X, y), batch_size=self.batch_size, shuffle=True)
        valid_loader = DataLoader(TensorDataset(X_valid, y_valid), batch_size=self.batch_size)
        for epoch in range(self.max_epochs):
            train_loss, _, _ = self.run_single_epoch(train_loader, training=True)
            valid_loss, valid_acc, self.last_valid_preds = self.run_single_epoch(valid_loader, training=False)
            self.history.append({"epoch": epoch, "train_loss": train_loss, "valid_loss": valid_loss,
                                 "valid_acc": valid_acc})
            print(f"{epoch:3d} | train_loss {train_loss:.4f} | valid_loss {valid_loss:.4f} | valid_acc {valid_acc:.3f}")
        return self


def main():
    torch.manual_seed(0)
    X = torch.randn(64, 3, 32)
    y = (X[:, 0].mean(1) > 0).long() + (X[:, 1].mean(1) > 0.1).long()
    net = NeuralNet(PointNetLike())
    net.fit(X[:48], y[:48], X[48:], y[48:])
    return net


if __name__ == "__main__":
    net = main()
    preds = net.last_valid_preds
    if all(p.grad_fn is not None for p in preds):
        print(f"BUGGY: {len(preds)} stored validation predictions still hold autograd graphs (grad_fn set)")
    else:
        raise SystemExit("NO BUG")
