"""GG403 - fixed version.

The forward hook calls retain_grad() on the stored activation, so autograd
keeps its gradient and the logging code can read .grad after backward().
"""
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class SmallCNN(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2))
        self.block2 = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(16 * 4 * 4, n_classes))

    def forward(self, x):
        return self.head(self.block2(self.block1(x)))


class Trainer:
    def __init__(self, model, optimizer, criterion, log_every=2):
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion
        self.log_every = log_every
        self.activations = {}
        self.step = 0
        for name in ("block1", "block2"):
            getattr(model, name).register_forward_hook(self._save(name))

    def _save(self, name):
        def hook(module, inp, out):
            out.retain_grad()
            self.activations[name] = out
        return hook

    def log_activation_grads(self):
        stats = {}
        for name, act in self.activations.items():
            stats[name] = act.grad.norm().item()  # fixed: GG403
        print(f"step {self.step}: " + " ".join(f"{k}={v:.4f}" for k, v in stats.items()))

    def train_step(self, xb, yb):
        self.optimizer.zero_grad()
        loss = self.criterion(self.model(xb), yb)
        loss.backward()
        if self.step % self.log_every == 0:
            self.log_activation_grads()
        self.optimizer.step()
        self.step += 1
        return loss.item()

    def train_epoch(self, loader):
        self.model.train()
        return sum(self.train_step(xb, yb) for xb, yb in loader) / len(loader)


def main():
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(32, 1, 16, 16), torch.randint(0, 4, (32,)))
    loader = DataLoader(ds, batch_size=8, shuffle=True)
    model = SmallCNN()
    trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.01), nn.CrossEntropyLoss())
    for epoch in range(2):
        print(f"epoch {epoch}: mean loss {trainer.train_epoch(loader):.4f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
