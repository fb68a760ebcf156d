"""GG501 look-alike - backward() on a per-sample loss vector WITH a gradient argument.

The BPR model returns one loss per triple and the loop calls backward() on that
vector, but passes explicit per-sample weights as `gradient=` (importance
weighting of the triples). That is a valid vector-Jacobian product: no error,
and every parameter gets a gradient.

Modelled on: https://github.com/sh0416/bpr/issues/13
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="weighted BPR item ranking")
    p.add_argument("--n_users", type=int, default=30)
    p.add_argument("--n_items", type=int, default=50)
    p.add_argument("--dim", type=int, default=8)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--batch_size", type=int, default=16)
    p.add_argument("--epochs", type=int, default=2)
    return p.parse_args(argv)


class BPRItem(nn.Module):
    def __init__(self, n_users, n_items, dim):
        super().__init__()
        self.user_emb = nn.Embedding(n_users, dim)
        self.item_emb = nn.Embedding(n_items, dim)
        self.item_bias = nn.Embedding(n_items, 1)
        nn.init.zeros_(self.item_bias.weight)

    def score(self, u, i):
        return (self.user_emb(u) * self.item_emb(i)).sum(1) + self.item_bias(i).squeeze(1)

    def forward(self, u, i, j):
        return -F.logsigmoid(self.score(u, i) - self.score(u, j))


def item_popularity_weights(i, n_items):
    """Down-weight triples whose positive item is very popular."""
    counts = torch.bincount(i, minlength=n_items).float()
    w = 1.0 / counts[i].clamp(min=1.0)
    return w / w.sum()


def train_one_epoch(model, loader, optimizer, n_items):
    model.train()
    total = 0.0
    for u, i, j in loader:
        optimizer.zero_grad()
        per_triple = model(u, i, j)
        weights = item_popularity_weights(i, n_items)
        per_triple.backward(gradient=weights)  # weighted mean via explicit gradient
        optimizer.step()
        total += float((per_triple.detach() * weights).sum())
    return total


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    n = 128
    ds = TensorDataset(torch.randint(0, args.n_users, (n,), generator=g),
                       torch.randint(0, args.n_items, (n,), generator=g),
                       torch.randint(0, args.n_items, (n,), generator=g))
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True)
    model = BPRItem(args.n_users, args.n_items, args.dim)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    before = model.user_emb.weight.detach().clone()
    for epoch in range(args.epochs):
        loss = train_one_epoch(model, loader, optimizer, args.n_items)
        print(f"epoch {epoch}: weighted loss {loss:.4f}")
    assert not torch.equal(before, model.user_emb.weight.detach())


if __name__ == "__main__":
    main([])
    print("OK")
