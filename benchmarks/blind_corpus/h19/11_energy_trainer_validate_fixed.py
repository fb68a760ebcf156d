"""GG204 (fixed) - validation loop runs under torch.no_grad().

Same energy/force trainer. The validation loop is wrapped in ``torch.no_grad()``,
so no graph is recorded for validation batches and the outputs kept in
``self.val_outputs`` are plain tensors. The buggy version ran validation with
autograd on and silently kept every validation batch's graph alive.

Modelled on: https://github.com/facebookresearch/fairchem/pull/199
"""
import os
import tempfile
from collections import defaultdict

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {
    "n_atoms": 6,
    "hidden": 32,
    "batch_size": 4,
    "epochs": 2,
    "lr": 5e-4,
    "energy_coef": 1.0,
    "force_coef": 10.0,
}


class AtomMLP(nn.Module):
    """Per-atom embedding -> energy (sum over atoms) and direct force head."""

    def __init__(self, hidden):
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(3, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.energy_head = nn.Linear(hidden, 1)
        self.force_head = nn.Linear(hidden, 3)

    def forward(self, pos):
        h = self.embed(pos)
        energy = self.energy_head(h).sum(dim=(1, 2))
        forces = self.force_head(h)
        return {"energy": energy, "forces": forces}


def make_loader(n, cfg, shuffle):
    pos = torch.randn(n, cfg["n_atoms"], 3)
    energy = pos.pow(2).sum(dim=(1, 2))
    forces = -2 * pos
    return DataLoader(TensorDataset(pos, energy, forces), batch_size=cfg["batch_size"], shuffle=shuffle)


class Evaluator:
    def eval(self, out, energy, forces, prev):
        prev["energy_mae"].append((out["energy"] - energy).abs().mean())
        prev["forces_mae"].append((out["forces"] - forces).abs().mean())
        return prev


class ForcesTrainer:
    def __init__(self, cfg, run_dir):
        self.cfg = cfg
        self.run_dir = run_dir
        self.model = AtomMLP(cfg["hidden"])
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=cfg["lr"])
        self.loss_fn = nn.L1Loss()
        self.evaluator = Evaluator()
        self.val_outputs = []
        self.best_val = float("inf")

    def _forward(self, batch):
        pos, _, _ = batch
        return self.model(pos)

    def _compute_loss(self, out, batch):
        _, energy, forces = batch
        return (self.cfg["energy_coef"] * self.loss_fn(out["energy"], energy)
                + self.cfg["force_coef"] * self.loss_fn(out["forces"], forces))

    def train(self, train_loader, val_loader):
        for epoch in range(self.cfg["epochs"]):
            self.model.train()
            for batch in train_loader:
                out = self._forward(batch)
                loss = self._compute_loss(out, batch)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            metrics = self.validate(val_loader)
            print(f"epoch {epoch}: " + ", ".join(f"{k} {v:.4f}" for k, v in metrics.items()))
            if metrics["loss"] < self.best_val:
                self.best_val = metrics["loss"]
                torch.save(self.model.state_dict(), os.path.join(self.run_dir, "best.pt"))

    def validate(self, loader, split="val"):
        self.model.eval()
        self.val_outputs = []
        metrics = defaultdict(list)
        losses = []
        with torch.no_grad():
            for i, batch in enumerate(loader):  # fixed: GG204
                out = self._forward(batch)
                loss = self._compute_loss(out, batch)
                metrics = self.evaluator.eval(out, batch[1], batch[2], metrics)
                losses.append(loss.item())
                self.val_outputs.append(out["energy"])
        result = {k: torch.stack(v).mean().item() for k, v in metrics.items()}
        result["loss"] = sum(losses) / len(losses)
        return result


def main():
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as run_dir:
        trainer = ForcesTrainer(CONFIG, run_dir)
        trainer.train(make_loader(16, CONFIG, True), make_loader(8, CONFIG, False))
    return trainer


if __name__ == "__main__":
    trainer = main()
    alive = [o for o in trainer.val_outputs if o.requires_grad and o.grad_fn is not None]
    assert not alive
    print("FIXED: ok")
