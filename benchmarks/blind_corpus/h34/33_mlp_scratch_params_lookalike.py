"""Multilayer perceptron from scratch, parameters scaled BEFORE requiring grad.

Modelled on: https://github.com/d2l-ai/d2l-en/pull/1713 (counterpart)

Look-alike: the parameters are still plain tensors scaled by 0.01 and handed
to ``torch.optim.SGD``, as in the PR, but the scaling happens first and
``requires_grad_()`` is called on the result, so every parameter is a leaf.
"""
import torch
from torch import nn


def init_params(num_inputs, num_outputs, num_hiddens):
    W1 = (torch.randn(num_inputs, num_hiddens) * 0.01).requires_grad_()
    b1 = torch.zeros(num_hiddens, requires_grad=True)
    W2 = (torch.randn(num_hiddens, num_outputs) * 0.01).requires_grad_()
    b2 = torch.zeros(num_outputs, requires_grad=True)
    return [W1, b1, W2, b2]


def net(X, params):
    W1, b1, W2, b2 = params
    H = torch.relu(X.reshape((-1, W1.shape[0])) @ W1 + b1)
    return H @ W2 + b2


def train(params, train_iter, num_epochs=2, lr=0.1):
    loss = nn.CrossEntropyLoss()
    updater = torch.optim.SGD(params, lr=lr)
    for _ in range(num_epochs):
        for X, y in train_iter:
            updater.zero_grad()
            loss(net(X, params), y).backward()
            updater.step()


if __name__ == "__main__":
    gen = torch.Generator().manual_seed(0)
    X = torch.randn(128, 784, generator=gen)
    y = torch.randint(0, 10, (128,), generator=gen)
    params = init_params(784, 10, 64)
    before = params[0].detach().clone()
    train(params, [(X[i:i + 32], y[i:i + 32]) for i in range(0, 128, 32)])
    assert not torch.equal(before, params[0].detach())
    print("OK")
