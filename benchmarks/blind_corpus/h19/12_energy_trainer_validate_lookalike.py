"""GG204 look-alike - validation with autograd enabled because forces need it.

Conservative force field: forces are the negative gradient of the predicted
energy with respect to atom positions, so evaluation must run with autograd on
(``torch.enable_grad()`` and ``autograd.grad``) - wrapping it in no_grad would
break it. What is kept across the validation loop is detached, and the per-batch
graph is dropped after each iteration. Looks like an evaluation loop without
no_grad, but no output graph survives; runs cleanly.

Modelled on: https://github.com/facebookresearch/fairchem/pull/199
"""
from collections import defaultdict

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CFG = {"n_atoms": 5, "hidden": 32, "batch_size": 4, "epochs": 2, "lr": 1e-3, "force_coef": 5.0}


class EnergyModel(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, pos):
        return self.net(pos).sum(dim=(1, 2))


def energy_and_forces(model, pos, training):
    pos = pos.clone().requires_grad_(True)
    energy = model(pos)
    (grad,) = torch.autograd.grad(energy.sum(), pos, create_graph=training)
    return energy, -grad


def make_loader(n, shuffle):
    pos = torch.randn(n, CFG["n_atoms"], 3)
    return DataLoader(TensorDataset(pos, pos.pow(2).sum(dim=(1, 2)), -2 * pos),
                      batch_size=CFG["batch_size"], shuffle=shuffle)


class Trainer:
    def __init__(self):
        self.model = EnergyModel(CFG["hidden"])
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=CFG["lr"])
        self.val_outputs = []

    def train_epoch(self, loader):
        self.model.train()
        for pos, e_ref, f_ref in loader:
            energy, forces = energy_and_forces(self.model, pos, training=True)
            loss = (energy - e_ref).abs().mean() + CFG["force_coef"] * (forces - f_ref).abs().mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

    def validate(self, loader):
        self.model.eval()
        self.val_outputs = []
        metrics = defaultdict(float)
        with torch.enable_grad():
            for i, (pos, e_ref, f_ref) in enumerate(loader):
                energy, forces = energy_and_forces(self.model, pos, training=False)
                energy, forces = energy.detach(), forces.detach()
                metrics["energy_mae"] += (energy - e_ref).abs().mean().item()
                metrics["forces_mae"] += (forces - f_ref).abs().mean().item()
                self.val_outputs.append({"energy": energy, "forces": forces})
        return {k: v / (i + 1) for k, v in metrics.items()}


def main():
    torch.manual_seed(0)
    trainer = Trainer()
    train_loader, val_loader = make_loader(16, True), make_loader(8, False)
    for epoch in range(CFG["epochs"]):
        trainer.train_epoch(train_loader)
        metrics = trainer.validate(val_loader)
        print(f"epoch {epoch}: " + ", ".join(f"{k}={v:.3f}" for k, v in metrics.items()))
    assert all(o["energy"].grad_fn is None for o in trainer.val_outputs)


if __name__ == "__main__":
    main()
    print("OK")
