"""GG111 (buggy): raw logits handed to nn.BCELoss.

Mistake: a distributed-training style "operator" builds a plain linear classifier
(no sigmoid at the end) and pairs it with nn.BCELoss, which expects probabilities in
[0, 1]. The first batch with a negative or >1 output makes the loss kernel refuse it.
Error raised by torch: RuntimeError: all elements of input should be between 0 and 1
Modelled on: https://github.com/ray-project/ray/issues/17117
"""
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

DEFAULT_CONFIG = {"batch_size": 16, "lr": 1e-2, "epochs": 2, "n_samples": 128}


class ThresholdDataset(Dataset):
    """y = 1 when a*x + b > 0; a binary version of a toy linear dataset."""

    def __init__(self, a, b, size=128):
        gen = torch.Generator().manual_seed(1)
        self.x = torch.linspace(-10, 10, size).unsqueeze(1)
        noise = 0.5 * torch.randn(size, 1, generator=gen)
        self.y = ((a * self.x + b + noise) > 0).float()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]


class TrainingOperator:
    def setup(self, config):
        train_set = ThresholdDataset(2.0, 5.0, config["n_samples"])
        val_set = ThresholdDataset(2.0, 5.0, config["n_samples"] // 4)
        self.train_loader = DataLoader(train_set, batch_size=config["batch_size"], shuffle=True)
        self.val_loader = DataLoader(val_set, batch_size=config["batch_size"])

        self.model = nn.Linear(1, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=config.get("lr", 1e-4))
        self.criterion = nn.BCELoss()
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=5, gamma=0.9)

    def train_batch(self, features, target):
        output = self.model(features)
        loss = self.criterion(output, target)  # bug: GG111
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return {"train_loss": loss.item(), "num_samples": features.size(0)}

    def train_epoch(self):
        self.model.train()
        totals, seen = 0.0, 0
        for features, target in self.train_loader:
            stats = self.train_batch(features, target)
            totals += stats["train_loss"] * stats["num_samples"]
            seen += stats["num_samples"]
        self.scheduler.step()
        return {"train_loss": totals / seen}

    def validate(self):
        self.model.eval()
        correct, seen = 0, 0
        with torch.no_grad():
            for features, target in self.val_loader:
                pred = (self.model(features) > 0).float()
                correct += (pred == target).sum().item()
                seen += target.numel()
        return {"val_accuracy": correct / seen}


def main(config=None):
    config = dict(DEFAULT_CONFIG, **(config or {}))
    torch.manual_seed(0)
    operator = TrainingOperator()
    operator.setup(config)
    for epoch in range(config["epochs"]):
        stats = operator.train_epoch()
        stats.update(operator.validate())
        print(f"epoch {epoch}: " + ", ".join(f"{k}={v:.3f}" for k, v in stats.items()))
    return operator


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
