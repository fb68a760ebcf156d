"""GG105 (fixed) - task losses combined with torch.stack, keeping the graph.

Fix: `torch.stack([...])` replaces `torch.tensor([...])`, so the weighted sum still
depends on every head and backward() works.

Mistake fixed: multi-task losses combined with torch.tensor(list_of_losses).
The buggy version fails with RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

warnings.filterwarnings("ignore", category=UserWarning)


class MultiTaskNet(nn.Module):
    def __init__(self, in_dim=12, hidden=32):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.heads = nn.ModuleDict({
            "cls": nn.Linear(hidden, 3),
            "reg": nn.Linear(hidden, 1),
            "aux": nn.Linear(hidden, 1),
        })

    def forward(self, x):
        h = self.shared(x)
        return {name: head(h) for name, head in self.heads.items()}


class MultiTaskLoss(nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.register_buffer("weights", torch.tensor(list(weights.values())))
        self.names = list(weights)

    def forward(self, outputs, targets):
        per_task = {
            "cls": F.cross_entropy(outputs["cls"], targets["cls"]),
            "reg": F.mse_loss(outputs["reg"].squeeze(-1), targets["reg"]),
            "aux": F.binary_cross_entropy_with_logits(outputs["aux"].squeeze(-1), targets["aux"]),
        }
        stacked = torch.stack([per_task[n] for n in self.names])  # fixed: GG105
        return (stacked * self.weights).sum(), {k: v.item() for k, v in per_task.items()}


def train(model, loader, optimizer, criterion, epochs=2):
    history = []
    for epoch in range(epochs):
        for x, y_cls, y_reg, y_aux in loader:
            loss, parts = criterion(model(x), {"cls": y_cls, "reg": y_reg, "aux": y_aux})
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            history.append(parts)
        print(f"epoch {epoch}: " + ", ".join(f"{k}={v:.3f}" for k, v in history[-1].items()))
    return history


def main():
    torch.manual_seed(0)
    n = 32
    x = torch.randn(n, 12)
    data = TensorDataset(x, torch.randint(0, 3, (n,)), torch.randn(n), torch.randint(0, 2, (n,)).float())
    model = MultiTaskNet()
    criterion = MultiTaskLoss({"cls": 1.0, "reg": 0.5, "aux": 0.2})
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    train(model, DataLoader(data, batch_size=8, shuffle=True), optimizer, criterion)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
