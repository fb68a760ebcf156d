"""GG407 - fixed version.

The input gradient for FGSM is computed explicitly with torch.autograd.grad
(keeping the graph for the later backward) instead of reading x.grad,
which no backward has filled yet.
"""
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def progress(iterable, desc=""):
    """Minimal tqdm-like wrapper."""
    items = list(iterable)
    for i, item in enumerate(items):
        yield item
        print(f"\r{desc} {i + 1}/{len(items)}", end="")
    print()


class AdvTrainer:
    def __init__(self, model, optimizer, eps=0.05, adv_weight=0.5, device="cpu"):
        self.model = model.to(device)
        self.optimizer = optimizer
        self.criterion = nn.CrossEntropyLoss()
        self.eps = eps
        self.adv_weight = adv_weight
        self.device = device
        self.metrics = {"clean": [], "adv": []}

    def perturb(self, x, grad):
        x_adv = x + self.eps * grad.sign()  # fixed: GG407
        return x_adv.clamp(-3, 3).detach()

    def train_step(self, x, y):
        x, y = x.to(self.device), y.to(self.device)
        x.requires_grad_(True)
        clean_loss = self.criterion(self.model(x), y)
        grad, = torch.autograd.grad(clean_loss, x, retain_graph=True)
        x_adv = self.perturb(x, grad)
        adv_loss = self.criterion(self.model(x_adv), y)
        loss = (1 - self.adv_weight) * clean_loss + self.adv_weight * adv_loss
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.metrics["clean"].append(clean_loss.item())
        self.metrics["adv"].append(adv_loss.item())

    def train_epoch(self, loader, epoch):
        self.model.train()
        for x, y in progress(loader, desc=f"epoch {epoch}"):
            self.train_step(x, y)
        n = len(loader)
        print(f"  clean={sum(self.metrics['clean'][-n:]) / n:.4f} adv={sum(self.metrics['adv'][-n:]) / n:.4f}")


def main():
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(48, 20), torch.randint(0, 5, (48,)))
    loader = DataLoader(ds, batch_size=16, shuffle=True)
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 5))
    trainer = AdvTrainer(model, torch.optim.Adam(model.parameters(), lr=1e-3))
    for epoch in range(2):
        trainer.train_epoch(loader, epoch)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
