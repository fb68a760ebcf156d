"""GG602 (fixed) - the dropout output is assigned back before it is used.

Originally `ResidualBlock.forward` called `self.dropout(hidden)` as a bare
statement, discarding its result, so dropout never happened.
Fix: `hidden = self.dropout(hidden)`; train-mode passes are now stochastic.

Modelled on: https://github.com/NX-AI/tirex/issues/19
"""
import argparse
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--context", type=int, default=32)
    p.add_argument("--horizon", type=int, default=8)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--num_blocks", type=int, default=3)
    p.add_argument("--dropout", type=float, default=0.3)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=3e-3)
    return p.parse_args(argv)


class ResidualBlock(nn.Module):
    def __init__(self, in_dim, hidden_dim, out_dim, dropout):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden_dim)
        self.fc2 = nn.Linear(hidden_dim, out_dim)
        self.skip = nn.Linear(in_dim, out_dim)
        self.act = nn.SiLU()
        self.dropout = nn.Dropout(dropout)
        self.norm = nn.LayerNorm(out_dim)

    def forward(self, x):
        hidden = self.act(self.fc1(x))
        hidden = self.dropout(hidden)  # fixed: GG602
        out = self.fc2(hidden)
        return self.norm(out + self.skip(x))


class PatchForecaster(nn.Module):
    def __init__(self, context, horizon, hidden, num_blocks, dropout):
        super().__init__()
        self.input_block = ResidualBlock(context, hidden, hidden, dropout)
        self.blocks = nn.ModuleList(
            [ResidualBlock(hidden, hidden, hidden, dropout) for _ in range(num_blocks - 1)]
        )
        self.head = nn.Linear(hidden, horizon)

    def forward(self, series):
        h = self.input_block(series)
        for block in self.blocks:
            h = block(h)
        return self.head(h)


def make_series(n, context, horizon):
    t = torch.arange(context + horizon).float()
    phase = torch.rand(n, 1) * 2 * math.pi
    freq = 0.1 + 0.2 * torch.rand(n, 1)
    full = torch.sin(freq * t + phase) + 0.05 * torch.randn(n, context + horizon)
    return full[:, :context], full[:, context:]


def train(model, loader, optimizer, criterion):
    model.train()
    total = 0.0
    for step, (past, future) in enumerate(loader):
        optimizer.zero_grad()
        pred = model(past)
        loss = criterion(pred, future)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / (step + 1)


def main(args):
    past, future = make_series(128, args.context, args.horizon)
    loader = DataLoader(TensorDataset(past, future), batch_size=32, shuffle=True)
    model = PatchForecaster(args.context, args.horizon, args.hidden, args.num_blocks, args.dropout)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    criterion = nn.MSELoss()
    for epoch in range(args.epochs):
        loss = train(model, loader, optimizer, criterion)
        print(f"epoch {epoch}: train mse {loss:.4f}")
    return model


def check_training():
    torch.manual_seed(0)
    args = parse_args([])
    model = main(args)
    model.train()
    probe, _ = make_series(4, args.context, args.horizon)
    with torch.no_grad():
        a = model(probe)
        b = model(probe)
    assert not torch.equal(a, b), (
        f"dropout p={args.dropout} has no effect: two train-mode passes of the same batch are identical"
    )


if __name__ == "__main__":
    check_training()
    print("FIXED: ok")
