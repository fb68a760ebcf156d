"""Logistic regression "from scratch" (nn_tutorial style), refactored to torch.optim.

Modelled on: https://github.com/pytorch/tutorials/issues/3716

Fixed version: as in the tutorial, the Xavier scaling is applied first and
requires_grad_() is called afterwards, so `weights` stays a leaf tensor that
optim.SGD accepts and updates.
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
    weights = torch.randn(N_FEATURES, N_CLASSES) / math.sqrt(N_FEATURES)
    weights.requires_grad_()
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
    return optim.SGD([weights, bias], lr=lr)


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
        acc = fit()
        assert 0.0 <= acc <= 1.0
        print("FIXED: ok")
    except ValueError as e:
        print(f"FAILED: {e}")
