"""GG203 look-alike: ``total += loss`` inside the loop, but per step.

A multi-task trainer sums the per-head losses with ``total_loss += loss`` and
also keeps a list of loss tensors.  Both look like the "accumulate the graph of
every iteration" mistake, but the accumulator and the list are re-created for
every batch, ``backward()`` runs once on the sum, and the epoch statistics are
kept as Python floats (``.item()``) and detached tensors only.  No graph
outlives its training step.
Modelled on: none (counter-example to https://github.com/BatsResearch/labelmodels/issues/4)
"""
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

TASKS = {"age": ("reg", 1), "gender": ("cls", 2), "emotion": ("cls", 4)}


class SharedTrunkNet(nn.Module):
    def __init__(self, in_dim, hidden, tasks):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.heads = nn.ModuleDict({name: nn.Linear(hidden, out) for name, (_, out) in tasks.items()})

    def forward(self, x):
        feats = self.trunk(x)
        return {name: head(feats) for name, head in self.heads.items()}


class MultiTaskTrainer:
    def __init__(self, model, optimizer, task_weights):
        self.model = model
        self.optimizer = optimizer
        self.task_weights = task_weights
        self.epoch_stats = []

    def task_loss(self, name, pred, target):
        kind, _ = TASKS[name]
        if kind == "reg":
            return F.smooth_l1_loss(pred.squeeze(1), target.float())
        return F.cross_entropy(pred, target.long())

    def train_step(self, x, targets):
        self.optimizer.zero_grad()
        outputs = self.model(x)
        total_loss = 0.0
        per_task = []
        for name, pred in outputs.items():
            loss = self.task_weights[name] * self.task_loss(name, pred, targets[name])
            per_task.append(loss)
            total_loss += loss
        total_loss.backward()
        self.optimizer.step()
        return total_loss.item(), {n: l.detach() for n, l in zip(outputs, per_task)}

    def train_epoch(self, loader):
        self.model.train()
        sums = defaultdict(float)
        running = 0.0
        for step, (x, age, gender, emotion) in enumerate(loader):
            loss_value, parts = self.train_step(x, {"age": age, "gender": gender, "emotion": emotion})
            running += loss_value
            for name, value in parts.items():
                sums[name] += value.item()
        stats = {name: v / (step + 1) for name, v in sums.items()}
        stats["total"] = running / (step + 1)
        self.epoch_stats.append(stats)
        return stats


def main():
    torch.manual_seed(0)
    n = 64
    x = torch.randn(n, 10)
    loader = DataLoader(
        TensorDataset(x, torch.rand(n) * 5, torch.randint(0, 2, (n,)), torch.randint(0, 4, (n,))),
        batch_size=16, shuffle=True)
    model = SharedTrunkNet(10, 32, TASKS)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    trainer = MultiTaskTrainer(model, opt, {"age": 0.5, "gender": 1.0, "emotion": 1.0})
    for epoch in range(2):
        stats = trainer.train_epoch(loader)
        print(f"epoch {epoch}: " + " ".join(f"{k}={v:.3f}" for k, v in stats.items()))
    assert all(isinstance(v, float) for v in trainer.epoch_stats[-1].values())


if __name__ == "__main__":
    main()
    print("OK")
