"""A trainer class given its model by the code that builds it: `Trainer(model, ...)` keeps
the model on `self`, and `validate()` keeps every batch's loss without no_grad (GG204).
The analysis learns `self.model` from the constructor calls, which all pass a module."""

import torch
from torch import nn


class Trainer:
    def __init__(self, model, optimizer, criterion):
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        loss = self.criterion(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def validate(self, loader):
        self.model.eval()
        losses = []
        for x, y in loader:  # expect: GG204
            losses.append(self.criterion(self.model(x), y))
        self.model.train()
        return torch.stack(losses).mean()

    def fit(self, train_loader, val_loader, epochs):
        history = []
        for _ in range(epochs):
            for x, y in train_loader:
                self.train_step(x, y)
            history.append(self.validate(val_loader))
        return history


class CarefulTrainer:
    """The fixed twin: validation runs under no_grad."""

    def __init__(self, model, optimizer, criterion):
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion

    def evaluate(self, loader):
        self.model.eval()
        losses = []
        with torch.no_grad():
            for x, y in loader:
                losses.append(self.criterion(self.model(x), y))
        self.model.train()
        return torch.stack(losses).mean()

    def run(self, val_loader, epochs):
        return [self.evaluate(val_loader) for _ in range(epochs)]


class ReportingTrainer:
    """Keeps only numbers: nothing grows (GG204 claims kept outputs)."""

    def __init__(self, model, criterion):
        self.model = model
        self.criterion = criterion

    def report(self, loader):
        self.model.eval()
        losses = []
        for x, y in loader:
            losses.append(self.criterion(self.model(x), y).item())
        self.model.train()
        return sum(losses) / max(len(losses), 1)


class PluggableTrainer:
    """Also built from code the file does not show (the class is handed on by name):
    what `self.model` holds is not known."""

    def __init__(self, model, criterion):
        self.model = model
        self.criterion = criterion

    def score(self, loader):
        self.model.eval()
        losses = []
        for x, y in loader:
            losses.append(self.criterion(self.model(x), y))
        return losses


def registry():
    return {"pluggable": PluggableTrainer}


def main(loader):
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    Trainer(model, optimizer, criterion).fit(loader, loader, 2)
    CarefulTrainer(model, optimizer, criterion).run(loader, 2)
    ReportingTrainer(model, criterion).report(loader)
    PluggableTrainer(model, criterion).score(loader)


if __name__ == "__main__":
    main([(torch.randn(3, 4), torch.tensor([0, 1, 0]))])
