"""Trainer whose training_step is decorated with @torch.no_grad().

Modelled on: https://github.com/rasbt/faster-pytorch-blog/issues/8

A user noticed that the blog's script wrapped the *training* step function in
torch.no_grad() (copied from the evaluation helper).  Every tensor produced
inside the decorated method has no grad_fn, so the loss it returns cannot be
backpropagated: loss.backward() raises "element 0 of tensors does not require
grad and does not have a grad_fn" and the model is never updated.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def build_parser():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--batch-size", type=int, default=16)
    return p


class SmallClassifier(nn.Module):
    def __init__(self, in_dim=10, hidden=32, n_classes=3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.head(self.body(x))


class LitTrainer:
    def __init__(self, model, lr):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.history = []

    @torch.no_grad()  # copied from evaluate(); wrong on a training step
    def training_step(self, batch):
        x, y = batch
        logits = self.model(x)
        return F.cross_entropy(logits, y)

    def fit(self, loader, epochs):
        for _ in range(epochs):
            for batch in loader:
                self.optimizer.zero_grad()
                loss = self.training_step(batch)
                loss.backward()  # bug: GG101
                self.optimizer.step()
                self.history.append(loss.item())


def make_loader(n=64, bs=16):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 10, generator=g)
    y = torch.randint(0, 3, (n,), generator=g)
    return [(x[i:i + bs], y[i:i + bs]) for i in range(0, n, bs)]


def main(argv=None):
    args = build_parser().parse_args(argv)
    trainer = LitTrainer(SmallClassifier(), args.lr)
    trainer.fit(make_loader(bs=args.batch_size), args.epochs)
    return trainer


if __name__ == "__main__":
    try:
        main([])
        print("no error raised")
    except RuntimeError as e:
        print(f"BUGGY: {e}")
