"""GG606: gradient accumulation without dividing the loss by the number of micro-batches.

Category GG606. To emulate a batch of 32 with micro-batches of 8, ``train`` calls
backward() on every micro-batch and steps the optimizer every ``accum_steps`` batches.
Each micro-batch loss is a mean, and the loss is not divided by ``accum_steps``, so the
accumulated gradient is the sum of 4 means: 4 times the gradient of the large batch the
author meant to emulate (an effective learning rate 4x too high).
Silent effect: no error. We compare the gradient norm logged before the first step with
the gradient norm of the same 32 samples as one batch: the ratio is accum_steps.
"""
import copy

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class RatingModel(nn.Module):
    def __init__(self, n_users=20, n_items=30, dim=8):
        super().__init__()
        self.users = nn.Embedding(n_users, dim)
        self.items = nn.Embedding(n_items, dim)
        self.mlp = nn.Sequential(nn.Linear(2 * dim, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, u, i):
        return self.mlp(torch.cat([self.users(u), self.items(i)], dim=-1)).squeeze(-1)


def log_metrics(metrics, **values):
    for key, value in values.items():
        metrics.setdefault(key, []).append(value)


def train(model, loader, optimizer, criterion, accum_steps=4, max_norm=1e3):
    metrics = {}
    model.train()
    optimizer.zero_grad()
    for step, (u, i, r) in enumerate(loader):
        loss = criterion(model(u, i), r)
        loss.backward()  # bug: GG606
        if (step + 1) % accum_steps == 0:
            grad_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()
            optimizer.zero_grad()
            log_metrics(metrics, loss=loss.item(), grad_norm=grad_norm.item())
    return metrics


def full_batch_grad_norm(model, dataset, n, criterion):
    u, i, r = dataset[:n]
    model.zero_grad()
    criterion(model(u, i), r).backward()
    return torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()


def main():
    torch.manual_seed(20)
    n = 96
    dataset = TensorDataset(torch.randint(0, 20, (n,)), torch.randint(0, 30, (n,)), torch.rand(n) * 5)
    loader = DataLoader(dataset, batch_size=8, shuffle=False)
    model = RatingModel()
    reference = full_batch_grad_norm(copy.deepcopy(model), dataset, 32, nn.MSELoss())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    metrics = train(model, loader, optimizer, nn.MSELoss(), accum_steps=4)
    print(f"steps: {len(metrics['loss'])}, last loss {metrics['loss'][-1]:.3f}")
    return metrics["grad_norm"][0] / reference


if __name__ == "__main__":
    ratio = main()
    if abs(ratio - 4.0) < 1e-3:
        print(f"BUGGY: accumulated gradient is {ratio:.3f}x the gradient of the equivalent batch")
        raise SystemExit(0)
    raise SystemExit(f"NO BUG (ratio {ratio:.3f})")
