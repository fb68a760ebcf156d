"""GG604 look-alike - weights loaded into the model AFTER the optimizer is built, correctly.

A Trainer creates its model and Adam optimizer in __init__, and resume() later
loads a checkpoint with model.load_state_dict(...).  load_state_dict copies the
saved values into the existing parameter tensors (it does not replace them),
so the optimizer still holds the very tensors the model uses and keeps
updating them.  A checker that flags "model weights changed after the
optimizer was created" would be wrong here.

Modelled on: https://github.com/adapter-hub/adapters/issues/260 (correct counterpart)
"""
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Regressor(nn.Module):
    def __init__(self, d_in=6, hidden=24):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(d_in, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.head(self.backbone(x)).squeeze(-1)


class Trainer:
    def __init__(self, lr=5e-3, ckpt_dir=None):
        self.model = Regressor()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=2, gamma=0.5)
        self.ckpt_dir = ckpt_dir
        self.epoch = 0

    def save(self):
        path = os.path.join(self.ckpt_dir, "last.pt")
        torch.save({"model": self.model.state_dict(), "optim": self.optimizer.state_dict(),
                    "sched": self.scheduler.state_dict(), "epoch": self.epoch}, path)
        return path

    def resume(self, path):
        state = torch.load(path)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optim"])
        self.scheduler.load_state_dict(state["sched"])
        self.epoch = state["epoch"]

    def train_epoch(self, loader):
        self.model.train()
        total = 0.0
        for x, y in loader:
            self.optimizer.zero_grad()
            loss = nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            total += loss.item() * len(y)
        self.scheduler.step()
        self.epoch += 1
        return total / len(loader.dataset)


def main():
    torch.manual_seed(8)
    x = torch.randn(64, 6)
    y = x @ torch.randn(6) + 0.1 * torch.randn(64)
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    with tempfile.TemporaryDirectory() as tmp:
        first = Trainer(ckpt_dir=tmp)
        for _ in range(2):
            print(f"run 1 epoch {first.epoch}: {first.train_epoch(loader):.4f}")
        path = first.save()

        second = Trainer(ckpt_dir=tmp)
        second.resume(path)
        loaded = second.model.head.weight.detach().clone()
        for _ in range(2):
            print(f"run 2 epoch {second.epoch}: {second.train_epoch(loader):.4f}")
    return loaded, second


if __name__ == "__main__":
    loaded, trainer = main()
    assert not torch.equal(loaded, trainer.model.head.weight.detach())
    opt_params = {id(p) for g in trainer.optimizer.param_groups for p in g["params"]}
    assert all(id(p) in opt_params for p in trainer.model.parameters())
    print("OK")
