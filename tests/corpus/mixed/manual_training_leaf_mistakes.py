"""Hand-written training loops over raw tensors: the leaf and shape mistakes of beginners.

Modelled on the questions that quote "a leaf Variable that requires grad is being used in an
in-place operation" (manual SGD without `torch.no_grad()`), "can't optimize a non-leaf
Tensor" (`torch.randn(..., requires_grad=True) * 0.01` handed to an optimizer), "Only
Tensors of floating point dtype can require gradients", "The .grad attribute of a Tensor
that is not a leaf Tensor is being accessed" and "grad can be implicitly created only for
scalar outputs" (discuss.pytorch.org and Stack Overflow). Each fixed shape sits beside it.
"""

import torch
from torch import nn


def manual_sgd(xs, ys, lr):
    w = torch.randn(3, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    for x, y in zip(xs, ys):
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        w -= lr * w.grad  # expect: GG301
        b -= lr * b.grad  # expect: GG301
        w.grad.zero_()
        b.grad.zero_()


def manual_sgd_under_no_grad(xs, ys, lr):
    w = torch.randn(3, 1, requires_grad=True)
    for x, y in zip(xs, ys):
        loss = ((x @ w - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
        w.grad.zero_()


def scaled_parameter(xs):
    w = torch.randn(3, 1, requires_grad=True) * 0.01  # expect: GG405
    optimizer = torch.optim.SGD([w], lr=0.1)
    for x in xs:
        loss = (x @ w).sum()
        optimizer.zero_grad()
        loss.backward()  # expect: GG202
        optimizer.step()


def scaled_then_marked(xs):
    w = (torch.randn(3, 1) * 0.01).requires_grad_()
    optimizer = torch.optim.SGD([w], lr=0.1)
    for x in xs:
        loss = (x @ w).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def integer_labels_requiring_grad():
    return torch.tensor([1, 2, 3], requires_grad=True)  # expect: GG402


def float_values_requiring_grad():
    return torch.tensor([1.0, 2.0, 3.0], requires_grad=True)


def hidden_activation_grad(x):
    w = torch.randn(3, 1, requires_grad=True)
    h = x @ w
    out = h.relu().sum()
    out.backward()
    return h.grad  # expect: GG403


def vector_output_backward(x):
    layer = nn.Linear(3, 2)
    out = layer(x)
    out.backward()  # expect: GG501


def vector_output_reduced(x):
    layer = nn.Linear(3, 2)
    layer(x).sum().backward()


def vector_output_with_gradient(x):
    layer = nn.Linear(3, 2)
    out = layer(x)
    out.backward(torch.ones_like(out))
