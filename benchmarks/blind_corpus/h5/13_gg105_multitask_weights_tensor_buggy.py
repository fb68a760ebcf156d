"""Category GG105 -- torch.tensor(...) of tensors with history cuts the graph.
Status: buggy.
A multi-task network (classification + regression heads on a shared trunk) combines
its task losses with a weight vector.  The per-task losses are packed with
`torch.tensor([...])` so they can be multiplied by the weights; torch.tensor copies
the values into a brand-new leaf, and the weighted total's backward() raises
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
Modelled on: https://discuss.pytorch.org/t/gradient-is-lost-when-use-torch-tensor-t1-t2/23261
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"in_dim": 10, "hidden": 32, "n_cls": 3, "batch_size": 8, "epochs": 2, "lr": 1e-3,
          "task_weights": [1.0, 0.5], "device": "cpu"}


class MultiTaskNet(nn.Module):
    def __init__(self, in_dim, hidden, n_cls):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.LayerNorm(hidden),
                                   nn.Linear(hidden, hidden), nn.ReLU())
        self.cls_head = nn.Linear(hidden, n_cls)
        self.reg_head = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.trunk(x)
        return {"cls": self.cls_head(h), "reg": self.reg_head(h).squeeze(-1)}


def task_losses(outputs, y_cls, y_reg):
    return {"cls": F.cross_entropy(outputs["cls"], y_cls),
            "reg": F.mse_loss(outputs["reg"], y_reg)}


def combine(losses, weights):
    stacked = torch.tensor([losses["cls"], losses["reg"]])  # bug: GG105
    return (weights * stacked).sum()


def train(model, loader, optimizer, weights, device):
    model.train()
    log = []
    for step, (x, y_cls, y_reg) in enumerate(loader):
        x, y_cls, y_reg = x.to(device), y_cls.to(device), y_reg.to(device)
        losses = task_losses(model(x), y_cls, y_reg)
        loss = combine(losses, weights)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        log.append({k: v.item() for k, v in losses.items()})
        if step % 2 == 0:
            print(f"step {step}: total={loss.item():.3f} " + " ".join(f"{k}={v:.3f}" for k, v in log[-1].items()))
    return log


def main():
    torch.manual_seed(0)
    c = CONFIG
    device = torch.device(c["device"])
    x = torch.randn(32, c["in_dim"])
    y_cls = torch.randint(0, c["n_cls"], (32,))
    y_reg = x.sum(1)
    loader = DataLoader(TensorDataset(x, y_cls, y_reg), batch_size=c["batch_size"], shuffle=True)
    model = MultiTaskNet(c["in_dim"], c["hidden"], c["n_cls"]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=c["lr"])
    weights = torch.tensor(c["task_weights"], device=device)
    for epoch in range(c["epochs"]):
        train(model, loader, optimizer, weights, device)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
