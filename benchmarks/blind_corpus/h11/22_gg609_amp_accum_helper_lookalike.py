"""GG609 look-alike - clipping and stepping with a GradScaler, done right.

Correct code: a Trainer with AMP and gradient accumulation. Gradients are scaled
during backward; at the accumulation boundary a helper `clip_gradients()` first calls
scaler.unscale_(optimizer), then clip_grad_norm_; scaler.step/update follow. The
clipping line sits right after scaled backward() calls, as in the bug, but the
gradients it sees are unscaled (checked: logged norms are O(1), not O(scale)).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"in_dim": 16, "hidden": 64, "classes": 5, "lr": 3e-3, "epochs": 2, "batch_size": 8,
          "accum_steps": 2, "max_grad_norm": 1.0, "use_amp": True}


class ResidualMLP(nn.Module):
    def __init__(self, in_dim, hidden, classes):
        super().__init__()
        self.inp = nn.Linear(in_dim, hidden)
        self.blocks = nn.ModuleList(nn.Sequential(nn.LayerNorm(hidden), nn.Linear(hidden, hidden), nn.GELU()) for _ in range(2))
        self.out = nn.Linear(hidden, classes)

    def forward(self, x):
        h = self.inp(x)
        for blk in self.blocks:
            h = h + blk(h)
        return self.out(h)


class Trainer:
    def __init__(self, model, cfg):
        self.model, self.cfg = model, cfg
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
        self.scaler = torch.amp.GradScaler("cpu", enabled=cfg["use_amp"])
        self.grad_norms = []

    def clip_gradients(self):
        self.scaler.unscale_(self.optimizer)
        return nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg["max_grad_norm"])

    def train_epoch(self, loader):
        self.model.train()
        self.optimizer.zero_grad(set_to_none=True)
        for i, (x, y) in enumerate(loader):
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.cfg["use_amp"]):
                loss = F.cross_entropy(self.model(x).float(), y) / self.cfg["accum_steps"]
            self.scaler.scale(loss).backward()
            if (i + 1) % self.cfg["accum_steps"] == 0:
                norm = self.clip_gradients()
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.optimizer.zero_grad(set_to_none=True)
                self.grad_norms.append(norm.item())
        return loss.item() * self.cfg["accum_steps"]


def main():
    torch.manual_seed(0)
    c = CONFIG
    x, y = torch.randn(64, c["in_dim"]), torch.randint(0, c["classes"], (64,))
    trainer = Trainer(ResidualMLP(c["in_dim"], c["hidden"], c["classes"]), c)
    loader = DataLoader(TensorDataset(x, y), batch_size=c["batch_size"], shuffle=True)
    for epoch in range(c["epochs"]):
        print(f"epoch {epoch}: loss {trainer.train_epoch(loader):.4f} last grad norm {trainer.grad_norms[-1]:.3f}")
    assert max(trainer.grad_norms) < 100.0, trainer.grad_norms


if __name__ == "__main__":
    main()
    print("OK")
