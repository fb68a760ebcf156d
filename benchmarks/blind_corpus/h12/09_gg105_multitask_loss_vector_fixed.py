"""GG105 - fixed version: the per-task losses are combined with torch.stack.

torch.stack keeps each task loss in the graph, so the weighted total
backpropagates into the trunk and every head.

Modelled on: https://github.com/pytorch/pytorch/issues/61410
"""
import sys
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

TASKS = {"age": 1.0, "gender": 0.5, "emotion": 0.5}


class MultiHeadNet(nn.Module):
    def __init__(self, in_dim=24, hidden=48):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.heads = nn.ModuleDict({
            "age": nn.Linear(hidden, 1),
            "gender": nn.Linear(hidden, 2),
            "emotion": nn.Linear(hidden, 7),
        })

    def forward(self, x):
        h = self.trunk(x)
        return {name: head(h) for name, head in self.heads.items()}


class MultiTaskLoss(nn.Module):
    def __init__(self, task_weights):
        super().__init__()
        self.names = list(task_weights)
        self.register_buffer("weights", torch.tensor([task_weights[n] for n in self.names]))

    def forward(self, outputs, targets):
        losses = {
            "age": F.smooth_l1_loss(outputs["age"].squeeze(1), targets["age"]),
            "gender": F.cross_entropy(outputs["gender"], targets["gender"]),
            "emotion": F.cross_entropy(outputs["emotion"], targets["emotion"]),
        }
        loss_vec = torch.stack([losses[n] for n in self.names])  # fixed: GG105
        total = (loss_vec * self.weights).sum()
        return total, {k: v.item() for k, v in losses.items()}


def train(model, loader, optimizer, criterion, epochs=1):
    model.train()
    for epoch in range(epochs):
        for step, (x, age, gender, emo) in enumerate(loader):
            outputs = model(x)
            total, parts = criterion(outputs, {"age": age, "gender": gender, "emotion": emo})
            optimizer.zero_grad()
            total.backward()
            optimizer.step()
            print(f"epoch {epoch} step {step} total {total.item():.3f} " +
                  " ".join(f"{k}={v:.3f}" for k, v in parts.items()))


def main():
    torch.manual_seed(0)
    n = 32
    ds = TensorDataset(torch.randn(n, 24), torch.rand(n) * 5, torch.randint(0, 2, (n,)), torch.randint(0, 7, (n,)))
    loader = DataLoader(ds, batch_size=8, shuffle=True)
    model = MultiHeadNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    train(model, loader, optimizer, MultiTaskLoss(TASKS))


if __name__ == "__main__":
    main()
    print("FIXED: ok")
