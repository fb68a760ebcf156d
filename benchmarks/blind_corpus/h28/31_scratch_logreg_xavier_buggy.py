"""Logistic regression "from scratch" (nn_tutorial style), refactored to torch.optim.

Modelled on: https://github.com/pytorch/tutorials/issues/3716

The PyTorch "What is torch.nn really?" tutorial builds its weights in two
lines, `weights = torch.randn(784, 10) / math.sqrt(784)` and then
`weights.requires_grad_()`, while the bias is created with
requires_grad=True in one line.  The issue explains why: if requires_grad is
set inside randn, the Xavier division is recorded and `weights` becomes a
non-leaf tensor, which an optimizer refuses ("can't optimize a non-leaf
Tensor").  This refactoring folds the two lines into one and hands the
tensors to optim.SGD.
"""
import math

import torch
import torch.nn.functional as F
from torch import optim

torch.set_num_threads(1)

N_FEATURES, N_CLASSES = 64, 10


def synthetic_mnist(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(n, N_FEATURES, generator=g)
    y = (x[:, :N_CLASSES].argmax(1))
    return x, y


def init_params():
    weights = torch.randn(N_FEATURES, N_CLASSES, requires_grad=True) / math.sqrt(N_FEATURES)
    bias = torch.zeros(N_CLASSES, requires_grad=True)
    return weights, bias


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def make_model(weights, bias):
    def model(xb):
        return log_softmax(xb @ weights + bias)
    return model


def nll(inp, target):
    return -inp[range(target.shape[0]), target].mean()


def accuracy(out, yb):
    return (torch.argmax(out, dim=1) == yb).float().mean()


def get_opt(weights, bias, lr):
    return optim.SGD([weights, bias], lr=lr)  # bug: GG405


def fit(epochs=2, bs=32, lr=0.5):
    x_train, y_train = synthetic_mnist(128)
    weights, bias = init_params()
    model = make_model(weights, bias)
    opt = get_opt(weights, bias, lr)
    n = x_train.shape[0]
    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            xb = x_train[i * bs: i * bs + bs]
            yb = y_train[i * bs: i * bs + bs]
            loss = nll(model(xb), yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
    return accuracy(model(x_train), y_train).item()


if __name__ == "__main__":
    torch.manual_seed(0)
    try:
        fit()
        print("no error")
    except ValueError as e:
        print(f"BUGGY: {e}")
