"""Multilayer perceptron from scratch (d2l chapter "mlp-scratch"), torch.optim updater.

Modelled on: https://github.com/d2l-ai/d2l-en/pull/1713

Fixed version (what the reviewer asked to keep): the scaled initial values are
wrapped in ``nn.Parameter``, which makes them leaf tensors the optimizer can
update.
"""
import argparse

import torch
from torch import nn


def init_params(num_inputs, num_outputs, num_hiddens):
    W1 = nn.Parameter(torch.randn(num_inputs, num_hiddens, requires_grad=True) * 0.01)
    b1 = nn.Parameter(torch.zeros(num_hiddens, requires_grad=True))
    W2 = nn.Parameter(torch.randn(num_hiddens, num_outputs, requires_grad=True) * 0.01)
    b2 = nn.Parameter(torch.zeros(num_outputs, requires_grad=True))
    return [W1, b1, W2, b2]


def relu(X):
    a = torch.zeros_like(X)
    return torch.max(X, a)


def net(X, params):
    W1, b1, W2, b2 = params
    X = X.reshape((-1, W1.shape[0]))
    H = relu(X @ W1 + b1)
    return H @ W2 + b2


def synthetic_fashion(n, num_inputs, num_outputs, gen):
    X = torch.randn(n, 1, 28, 28, generator=gen)[:, :, :, :num_inputs // 28]
    X = X.reshape(n, -1)[:, :num_inputs]
    y = torch.randint(0, num_outputs, (n,), generator=gen)
    return [(X[i:i + 32], y[i:i + 32]) for i in range(0, n, 32)]


def train_epoch(params, train_iter, loss, updater):
    total = 0.0
    for X, y in train_iter:
        y_hat = net(X, params)
        l = loss(y_hat, y)
        updater.zero_grad()
        l.mean().backward()
        updater.step()
        total += l.detach().sum().item()
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--num_hiddens", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--num_epochs", type=int, default=2)
    args = p.parse_args([])
    num_inputs, num_outputs = 784, 10
    gen = torch.Generator().manual_seed(0)
    train_iter = synthetic_fashion(128, num_inputs, num_outputs, gen)
    params = init_params(num_inputs, num_outputs, args.num_hiddens)
    loss = nn.CrossEntropyLoss(reduction="none")
    try:
        updater = torch.optim.SGD(params, lr=args.lr)
        for epoch in range(args.num_epochs):
            train_epoch(params, train_iter, loss, updater)
        print("FIXED: ok")
    except ValueError as e:
        print("FIXED broke:", e)


if __name__ == "__main__":
    main()
