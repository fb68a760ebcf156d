"""Regression trainer that clears gradients between backward() and step().

Modelled on: https://discuss.pytorch.org/t/what-step-backward-and-zero-grad-do/33301

The forum thread asks what ``step()``, ``backward()`` and ``zero_grad()`` do;
the answer stresses the order zero_grad -> backward -> step.  This trainer's
``optimize`` helper puts ``zero_grad()`` after ``backward()`` (to "clean up")
but before ``step()``: the gradients just computed are wiped and the SGD step
is a no-op, so the weights never move and the loss never improves.
"""
import argparse
import math

import torch
import torch.nn as nn


class MLPRegressor(nn.Module):
    def __init__(self, n_in, n_hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_in, n_hidden), nn.Tanh(), nn.Linear(n_hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


class Trainer:
    def __init__(self, model, args):
        self.model = model
        self.criterion = nn.MSELoss()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=2, gamma=0.5)
        self.history = []

    def compute_loss(self, batch):
        x, y = batch
        return self.criterion(self.model(x), y)

    def optimize(self, loss):
        loss.backward()
        self.optimizer.zero_grad()  # bug: GG605
        self.optimizer.step()

    def run_epoch(self, loader):
        self.model.train()
        total = 0.0
        for batch in loader:
            loss = self.compute_loss(batch)
            self.optimize(loss)
            total += loss.item()
        self.scheduler.step()
        self.history.append(total / len(loader))
        return self.history[-1]

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        return sum(self.compute_loss(b).item() for b in loader) / len(loader)


def make_data(args, seed):
    g = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(args.n_batches):
        x = torch.rand(args.batch_size, args.n_in, generator=g) * 2 - 1
        y = torch.sin(math.pi * x[:, 0]) + 0.5 * x[:, 1]
        batches.append((x, y))
    return batches


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n-in", type=int, default=3)
    p.add_argument("--n-hidden", type=int, default=16)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--n-batches", type=int, default=5)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=0.1)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = get_args([])
    model = MLPRegressor(args.n_in, args.n_hidden)
    trainer = Trainer(model, args)
    train, val = make_data(args, 0), make_data(args, 1)
    before = [p.detach().clone() for p in model.parameters()]
    for _ in range(args.epochs):
        trainer.run_epoch(train)
    unchanged = all(torch.equal(b, p.detach()) for b, p in zip(before, model.parameters()))
    if unchanged:
        print("BUGGY: optimizer.step() ran on zeroed gradients; no weight changed")
    else:
        print("weights were updated")
