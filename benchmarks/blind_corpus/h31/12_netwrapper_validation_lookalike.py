"""Trainer with one shared step function for training and validation.

Modelled on: https://github.com/skorch-dev/skorch/pull/219 (counterpart)

Looks like the leaking wrapper: the validation phase calls the very same
`step()` as training, on a module in eval() mode, without a `with
torch.no_grad():` block around the call site.  But `step()` wraps its forward
pass in `torch.set_grad_enabled(training)`, so in the validation phase autograd
is off and the cached predictions have no graph.
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class TabularNet(nn.Module):
    def __init__(self, n_in=12, hidden=24, n_out=2):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(),
                                  nn.Linear(hidden, n_out))

    def forward(self, x):
        return self.body(x)


class PhaseTrainer:
    def __init__(self, model, lr=1e-2, epochs=2):
        self.model = model
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.epochs = epochs
        self.predictions = {"train": [], "valid": []}
        self.history = []

    def step(self, xb, yb, training):
        self.model.train(training)
        with torch.set_grad_enabled(training):
            logits = self.model(xb)
            loss = self.criterion(logits, yb)
            if training:
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
        return loss.item(), logits

    def run_phase(self, loader, phase):
        training = phase == "train"
        self.predictions[phase] = []
        total = 0.0
        for xb, yb in loader:
            loss, logits = self.step(xb, yb, training)
            total += loss
            if not training:
                self.predictions[phase].append(logits)
        return total / len(loader)

    def fit(self, loaders):
        for epoch in range(self.epochs):
            record = {phase: self.run_phase(loader, phase) for phase, loader in loaders.items()}
            self.history.append(record)
        return self


def make_loader(n, seed, shuffle):
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, 12, generator=g)
    y = (X.sum(1) > 0).long()
    return DataLoader(TensorDataset(X, y), batch_size=32, shuffle=shuffle)


if __name__ == "__main__":
    torch.manual_seed(0)
    loaders = {"train": make_loader(96, 0, True), "valid": make_loader(64, 1, False)}
    trainer = PhaseTrainer(TabularNet()).fit(loaders)
    assert all(p.grad_fn is None for p in trainer.predictions["valid"])
    print("OK")
