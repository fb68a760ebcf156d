"""GG610 (fixed) - the named parameters are materialised in a list before two passes.

Originally `named = model.named_parameters()` was a generator that the first
list comprehension exhausted, so the "no decay" group was empty and all biases
and LayerNorm parameters were left out of AdamW.
Fix: `named = list(model.named_parameters())`.

Modelled on: https://github.com/pytorch/pytorch/issues/47594
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--d-in", type=int, default=10)
    p.add_argument("--d-model", type=int, default=32)
    p.add_argument("--n-classes", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--weight-decay", type=float, default=0.05)
    p.add_argument("--epochs", type=int, default=2)
    return p.parse_args(argv)


class FeedForwardBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 2 * d)
        self.fc2 = nn.Linear(2 * d, d)

    def forward(self, x):
        return x + self.fc2(torch.relu(self.fc1(self.norm(x))))


class TabularNet(nn.Module):
    def __init__(self, d_in, d_model, n_classes):
        super().__init__()
        self.inp = nn.Linear(d_in, d_model)
        self.blocks = nn.Sequential(FeedForwardBlock(d_model), FeedForwardBlock(d_model))
        self.norm = nn.LayerNorm(d_model)
        self.out = nn.Linear(d_model, n_classes)

    def forward(self, x):
        return self.out(self.norm(self.blocks(self.inp(x))))


def configure_optimizer(model, lr, weight_decay):
    named = list(model.named_parameters())
    decay = [p for n, p in named if p.ndim >= 2]
    no_decay = [p for n, p in named if p.ndim < 2]  # fixed: GG610
    groups = [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    print(f"param groups: {len(decay)} with decay, {len(no_decay)} without")
    return torch.optim.AdamW(groups, lr=lr)


def train(model, loader, optimizer, criterion, epochs):
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: loss {total / len(loader):.4f}")


def main(args):
    x = torch.randn(128, args.d_in)
    y = torch.randint(0, args.n_classes, (128,))
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    model = TabularNet(args.d_in, args.d_model, args.n_classes)
    optimizer = configure_optimizer(model, args.lr, args.weight_decay)
    start = {n: p.detach().clone() for n, p in model.named_parameters()}
    train(model, loader, optimizer, nn.CrossEntropyLoss(), args.epochs)
    return model, start


def check_training():
    torch.manual_seed(0)
    model, start = main(parse_args([]))
    frozen = [n for n, p in model.named_parameters() if torch.equal(p.detach(), start[n])]
    assert not frozen, f"{len(frozen)} parameters never updated (left out of the optimizer): {frozen[:4]}"


if __name__ == "__main__":
    check_training()
    print("FIXED: ok")
