"""GG501 (fixed) - the per-triple BPR loss is averaged before backward().

The forward still returns one value per (u, i, j); the training loop reduces it
with .mean() so backward() gets a scalar and no gradient argument is needed.

Modelled on: https://github.com/sh0416/bpr/issues/13
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="BPR item ranking")
    p.add_argument("--n_users", type=int, default=30)
    p.add_argument("--n_items", type=int, default=50)
    p.add_argument("--dim", type=int, default=8)
    p.add_argument("--weight_decay", type=float, default=1e-3)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--batch_size", type=int, default=16)
    p.add_argument("--epochs", type=int, default=2)
    return p.parse_args(argv)


class BPRItem(nn.Module):
    """Matrix factorisation scored with Bayesian personalised ranking."""

    def __init__(self, n_users, n_items, dim, weight_decay):
        super().__init__()
        self.user_emb = nn.Parameter(torch.empty(n_users, dim))
        self.item_emb = nn.Parameter(torch.empty(n_items, dim))
        self.item_bias = nn.Parameter(torch.zeros(n_items))
        nn.init.xavier_normal_(self.user_emb)
        nn.init.xavier_normal_(self.item_emb)
        self.weight_decay = weight_decay

    def score(self, u, i):
        return (self.user_emb[u] * self.item_emb[i]).sum(dim=1) + self.item_bias[i]

    def forward(self, u, i, j):
        x_uij = self.score(u, i) - self.score(u, j)
        nll = -F.logsigmoid(x_uij)
        reg = self.weight_decay * (
            self.user_emb[u].pow(2).sum(1)
            + self.item_emb[i].pow(2).sum(1)
            + self.item_emb[j].pow(2).sum(1)
        )
        return nll + reg  # one value per (u, i, j)


def make_triples(n_users, n_items, n=128, seed=0):
    g = torch.Generator().manual_seed(seed)
    u = torch.randint(0, n_users, (n,), generator=g)
    i = torch.randint(0, n_items, (n,), generator=g)
    j = torch.randint(0, n_items, (n,), generator=g)
    return TensorDataset(u, i, j)


def train_one_epoch(model, loader, optimizer, epoch):
    model.train()
    running = 0.0
    for step, (u, i, j) in enumerate(loader):
        optimizer.zero_grad()
        loss = model(u, i, j)
        loss = loss.mean()
        loss.backward()  # fixed: GG501
        optimizer.step()
        running += loss.detach().sum().item()
    print(f"epoch {epoch}: summed loss {running:.4f}")
    return running


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(0)
    model = BPRItem(args.n_users, args.n_items, args.dim, args.weight_decay)
    loader = DataLoader(make_triples(args.n_users, args.n_items),
                        batch_size=args.batch_size, shuffle=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        train_one_epoch(model, loader, optimizer, epoch)


if __name__ == "__main__":
    main([])
    print("FIXED: ok")
