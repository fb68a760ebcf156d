"""GG105 - torch.tensor() built from loss tensors cuts them out of the graph.

Multi-task model (shared encoder, a classification head and a regression head).
MultiTaskLoss collects the per-task losses in a list and combines them with
`torch.tensor(task_losses)`, which copies the *values* into a new leaf tensor
with no history. The weighted sum has no grad_fn; torch warns about converting a
tensor that requires grad to a scalar and then raises at backward():
    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Modelled on: https://discuss.pytorch.org/t/gradient-is-lost-when-use-torch-tensor-t1-t2/23261
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

warnings.filterwarnings("ignore", category=UserWarning)

TASKS = {"cls": {"weight": 1.0, "out": 3}, "reg": {"weight": 0.5, "out": 1}}
TRAIN = {"lr": 1e-3, "epochs": 2, "batch_size": 16, "clip": 5.0}


class MultiTaskNet(nn.Module):
    def __init__(self, in_dim, tasks):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, 64), nn.GELU(), nn.LayerNorm(64), nn.Linear(64, 32), nn.GELU())
        self.heads = nn.ModuleDict({name: nn.Linear(32, t["out"]) for name, t in tasks.items()})

    def forward(self, x):
        h = self.encoder(x)
        return {name: head(h) for name, head in self.heads.items()}


class MultiTaskLoss(nn.Module):
    def __init__(self, tasks):
        super().__init__()
        self.names = list(tasks)
        self.register_buffer("weights", torch.tensor([tasks[n]["weight"] for n in self.names]))

    def task_loss(self, name, pred, target):
        if name == "cls":
            return F.cross_entropy(pred, target["cls"])
        return F.mse_loss(pred.squeeze(-1), target["reg"])

    def forward(self, outputs, targets):
        task_losses = [self.task_loss(n, outputs[n], targets) for n in self.names]
        stacked = torch.tensor(task_losses)  # bug: GG105
        total = (stacked * self.weights).sum()
        return total, dict(zip(self.names, stacked.tolist()))


def train_epoch(model, loader, optimizer, criterion):
    model.train()
    for x, y_cls, y_reg in loader:
        outputs = model(x)
        loss, parts = criterion(outputs, {"cls": y_cls, "reg": y_reg})
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), TRAIN["clip"])
        optimizer.step()
    return parts


def main():
    torch.manual_seed(0)
    x = torch.randn(48, 10)
    ds = TensorDataset(x, torch.randint(0, 3, (48,)), x[:, 0] * 2.0)
    loader = DataLoader(ds, batch_size=TRAIN["batch_size"], shuffle=True)
    model = MultiTaskNet(10, TASKS)
    criterion = MultiTaskLoss(TASKS)
    optimizer = torch.optim.Adam(model.parameters(), lr=TRAIN["lr"])
    for epoch in range(TRAIN["epochs"]):
        parts = train_epoch(model, loader, optimizer, criterion)
        print(f"epoch {epoch}: " + ", ".join(f"{k}={v:.3f}" for k, v in parts.items()))


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
