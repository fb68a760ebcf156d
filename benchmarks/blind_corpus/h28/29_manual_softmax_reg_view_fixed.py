"""Softmax regression trained with hand-written gradient descent.

Modelled on: https://github.com/pytorch/pytorch/issues/1479

Fixed version: the flat vector is reshaped first and requires_grad is set on
the reshaped tensor, so W itself is a leaf and backward() fills W.grad.
"""
import argparse

import torch
import torch.nn.functional as F

torch.set_num_threads(1)


def make_blobs(n_per_class, n_features, n_classes, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(n_classes, n_features, generator=g) * 3
    xs, ys = [], []
    for c in range(n_classes):
        xs.append(centers[c] + torch.randn(n_per_class, n_features, generator=g))
        ys.append(torch.full((n_per_class,), c, dtype=torch.long))
    return torch.cat(xs), torch.cat(ys)


def init_params(n_features, n_classes):
    W = torch.randn(n_features * n_classes).view(n_features, n_classes).requires_grad_()
    b = torch.zeros(n_classes, requires_grad=True)
    return W, b


def forward(X, W, b):
    return X @ W + b


def train(args):
    X, y = make_blobs(args.n_per_class, args.n_features, args.n_classes)
    W, b = init_params(args.n_features, args.n_classes)
    history = []
    for epoch in range(args.epochs):
        logits = forward(X, W, b)
        loss = F.cross_entropy(logits, y)
        loss.backward()
        with torch.no_grad():
            W -= args.lr * W.grad
            b -= args.lr * b.grad
            W.grad.zero_()
            b.grad.zero_()
        history.append(loss.item())
    return history


def parse(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n-per-class", type=int, default=20)
    p.add_argument("--n-features", type=int, default=4)
    p.add_argument("--n-classes", type=int, default=3)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--epochs", type=int, default=10)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    try:
        hist = train(parse([]))
        assert hist[-1] < hist[0]
        print("FIXED: ok")
    except TypeError as e:
        print(f"FAILED: {e}")
