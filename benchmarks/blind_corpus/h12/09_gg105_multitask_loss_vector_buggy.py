"""GG105 - torch.tensor(...) over loss tensors cuts them out of the graph.

A multi-task regression/classification model computes one loss per task, keeps
them in a dict for logging, and builds a loss vector with torch.tensor(list) to
take a weighted sum with fixed task weights. torch.tensor() copies the values
into a fresh leaf with no history, so the weighted total has no grad_fn and:
    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Modelled on: https://github.com/pytorch/pytorch/issues/61410
(converting a list of tensors that require grad with torch.Tensor([...]) silently drops requires_grad).
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
        loss_vec = torch.tensor([losses[n] for n in self.names])  # bug: GG105
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
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
