"""GG203 (fixed): running loss accumulated as a tensor keeps every batch's graph.
Fixed version: the running total adds loss.item(), a Python float.

Mistake: train() sums the batch losses with `total_loss += loss` to report an epoch
average. `loss` is a graph-attached tensor, so total_loss becomes a chain of add nodes
that references the graph of every batch of the epoch (activations included); nothing
can be freed until the epoch ends. On a GPU this is the classic "memory grows every
iteration" leak.
Silent effect: no error; the returned average still has a grad_fn and its autograd
graph grows linearly with the number of batches.
Modelled on: https://pytorch.org/docs/stable/notes/faq.html (My model reports "cuda runtime error(2): out of memory")
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description="MLP regression")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--device", default="cpu")
    return parser.parse_args(argv)


class Regressor(nn.Module):
    def __init__(self, d_in=6, d_hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(),
                                 nn.Linear(d_hidden, d_hidden), nn.ReLU(), nn.Linear(d_hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def count_graph_nodes(t):
    seen, stack = set(), [t.grad_fn] if t.grad_fn is not None else []
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        stack.extend(nxt for nxt, _ in fn.next_functions)
    return len(seen)


def train(model, loader, optimizer, criterion, device):
    model.train()
    total_loss = 0
    for batch_idx, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()  # fixed: GG203
    return total_loss / len(loader)


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(0)
    x = torch.randn(80, 6)
    y = x @ torch.randn(6) + 0.1 * torch.randn(80)
    loader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size, shuffle=True)
    model = Regressor().to(args.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.MSELoss()
    history = []
    for epoch in range(args.epochs):
        avg = train(model, loader, optimizer, criterion, args.device)
        history.append(avg)
        print(f"Epoch {epoch + 1}/{args.epochs} - train loss: {float(avg):.4f}")
    return history, len(loader)


if __name__ == "__main__":
    history, n_batches = main([])
    last = history[-1]
    assert not (isinstance(last, torch.Tensor) and last.grad_fn is not None)
    print("FIXED: ok")
