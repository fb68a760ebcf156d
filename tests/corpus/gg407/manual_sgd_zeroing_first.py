"""Hand-written SGD loops that clear `.grad` before the first backward ever ran (GG407).

Each function raises on its first iteration:
AttributeError: 'NoneType' object has no attribute 'zero_'
"""

import torch
from torch import nn

torch.manual_seed(0)
lr = 0.05


def linear_regression(x, y):
    w = torch.randn(3, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    for epoch in range(100):
        w.grad.zero_()  # expect: GG407
        b.grad.zero_()  # expect: GG407
        prediction = x @ w + b
        loss = ((prediction - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad


def module_parameters(batches):
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
    criterion = nn.MSELoss()
    for inputs, targets in batches:
        for p in model.parameters():
            p.grad.data.zero_()  # expect: GG407
        loss = criterion(model(inputs), targets)
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= lr * p.grad


def logistic_regression(features, labels):
    weights = nn.Parameter(torch.zeros(features.shape[1]))
    bias = nn.Parameter(torch.zeros(()))
    for step in range(50):
        logits = features @ weights + bias
        loss = nn.functional.binary_cross_entropy_with_logits(logits, labels)
        # Meant as "reset before backward", but there is nothing to reset yet.
        weights.grad.detach_()  # expect: GG407
        loss.backward()
        with torch.no_grad():
            weights -= 0.1 * weights.grad
            bias -= 0.1 * bias.grad
        weights.grad = None
        bias.grad = None


def update_before_backward():
    # The update was written before the backward call it needs.
    w = torch.ones(5, requires_grad=True)
    target = torch.arange(5.0)
    w.data -= lr * w.grad  # expect: GG407
    loss = ((w - target) ** 2).sum()
    loss.backward()


def gradient_norm_logged_too_early():
    w = torch.randn(10, requires_grad=True)
    print("grad norm", w.grad.norm())  # expect: GG407
    (w.sin() ** 2).sum().backward()


if __name__ == "__main__":
    x = torch.randn(32, 3)
    cases = [
        lambda: linear_regression(x, x.sum(dim=1, keepdim=True)),
        lambda: module_parameters([(torch.randn(8, 4), torch.randn(8, 1))]),
        lambda: logistic_regression(torch.randn(16, 2), torch.rand(16).round()),
        update_before_backward,
        gradient_norm_logged_too_early,
    ]
    for case in cases:
        try:
            case()
        except (AttributeError, TypeError) as error:
            print(type(error).__name__, error)
