"""GG407 - gradients are read before backward() ran (they are still None).

Multi-task training with FAMO-style adaptive task weighting. The training step
zeroes the gradients (set to None), then calls the hand-written
``clip_grad_norm`` helper - which reads ``p.grad`` of every shared parameter to
compute the total norm - *before* ``loss.backward()``. No backward has run for
this step, every ``.grad`` is None, and the helper fails with
  AttributeError: 'NoneType' object has no attribute 'norm'

Modelled on: https://github.com/Cranial-XIX/FAMO/issues/4
"""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


@dataclass
class Config:
    n_tasks: int = 2
    in_dim: int = 10
    hidden: int = 32
    batch_size: int = 8
    epochs: int = 2
    lr: float = 1e-3
    w_lr: float = 0.025
    max_grad_norm: float = 1.0


class MultiTaskNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(cfg.in_dim, cfg.hidden), nn.ReLU(),
                                    nn.Linear(cfg.hidden, cfg.hidden), nn.ReLU())
        self.heads = nn.ModuleList([nn.Linear(cfg.hidden, 1) for _ in range(cfg.n_tasks)])

    def forward(self, x):
        h = self.shared(x)
        return [head(h).squeeze(-1) for head in self.heads]


class FAMO:
    """Fast adaptive multitask optimisation: softmax task weights on log-losses."""

    def __init__(self, n_tasks, w_lr, min_losses=None):
        self.n_tasks = n_tasks
        self.min_losses = torch.zeros(n_tasks) if min_losses is None else min_losses
        self.w = torch.zeros(n_tasks, requires_grad=True)
        self.w_opt = torch.optim.Adam([self.w], lr=w_lr)
        self.prev_loss = None

    def get_weighted_loss(self, losses):
        self.prev_loss = losses.detach()
        z = F.softmax(self.w, -1)
        D = losses - self.min_losses + 1e-8
        c = (z / D).sum().detach()
        return (D.log() * z / c).sum()

    def update(self, curr_loss):
        delta = (self.prev_loss - self.min_losses + 1e-8).log() - (curr_loss - self.min_losses + 1e-8).log()
        with torch.enable_grad():
            d = torch.autograd.grad(F.softmax(self.w, -1), self.w, grad_outputs=delta.detach())[0]
        self.w_opt.zero_grad()
        self.w.grad = d
        self.w_opt.step()


def clip_grad_norm(parameters, max_norm):
    parameters = list(parameters)
    total_norm = math.sqrt(sum(p.grad.norm().item() ** 2 for p in parameters))
    coef = max_norm / (total_norm + 1e-6)
    if coef < 1:
        for p in parameters:
            p.grad.mul_(coef)
    return total_norm


def make_loader(cfg):
    x = torch.randn(32, cfg.in_dim)
    y = torch.stack([x[:, :3].sum(1), (x[:, 3:] ** 2).mean(1)], dim=1)
    return DataLoader(TensorDataset(x, y), batch_size=cfg.batch_size, shuffle=True)


def train(model, famo, loader, optimizer, cfg):
    for epoch in range(cfg.epochs):
        for step, (x, y) in enumerate(loader):
            preds = model(x)
            losses = torch.stack([F.mse_loss(preds[t], y[:, t]) for t in range(cfg.n_tasks)])
            loss = famo.get_weighted_loss(losses)
            optimizer.zero_grad()
            if cfg.max_grad_norm > 0:
                grad_norm = clip_grad_norm(model.shared.parameters(), cfg.max_grad_norm)  # bug: GG407
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                new_preds = model(x)
                new_losses = torch.stack([F.mse_loss(new_preds[t], y[:, t]) for t in range(cfg.n_tasks)])
            famo.update(new_losses)
            print(f"epoch {epoch} step {step}: losses {losses.tolist()} |g| {grad_norm:.3f}")


def main():
    torch.manual_seed(0)
    cfg = Config()
    model = MultiTaskNet(cfg)
    famo = FAMO(cfg.n_tasks, cfg.w_lr)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    train(model, famo, make_loader(cfg), optimizer, cfg)


if __name__ == "__main__":
    try:
        main()
    except AttributeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
