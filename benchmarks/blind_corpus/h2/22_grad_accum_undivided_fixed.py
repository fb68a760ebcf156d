"""GG606 (fixed): gradient accumulation divides each micro-batch loss by accum_steps.

Category GG606. Each micro-batch loss is divided by ``accum_steps`` before backward(),
so the accumulated gradient is the mean over the 32 samples, the same as one batch of
32. In the buggy version it was accum_steps times larger; here we assert the gradient
norm before the first step matches the one of the equivalent single batch.
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
        (loss / accum_steps).backward()  # fixed: GG606
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
    assert abs(ratio - 1.0) < 1e-3, ratio
    print("FIXED: ok")
