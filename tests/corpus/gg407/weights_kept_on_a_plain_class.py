"""A hand-written linear regressor keeps its weights on a small class and the training
function clears their gradients first thing in the loop (GG407).

Modelled on https://github.com/jcjohnson/pytorch-examples/issues/14: the autograd example
zeroed `w1.grad` before the first backward pass had created it and failed with
"'NoneType' object has no attribute 'data'". Here the weights live on an instance of a
plain class (`self.weight = torch.randn(..., requires_grad=True)` in `__init__`), built in
`main` and handed to `fit`, which calls the class's own `predict` before backward and
updates the weights in place with a helper (`model.weight -= ...`, the same tensor). The
look-alikes clear the gradients after the update, check for None first, or get an instance
whose weights a warm-up pass already gave gradients.
"""

import torch


class Regressor:
    def __init__(self, features):
        self.weight = torch.randn(features, 1, requires_grad=True)
        self.bias = torch.zeros(1, requires_grad=True)

    def predict(self, x):
        return x @ self.weight + self.bias


def sgd_update(model, lr):
    with torch.no_grad():
        model.weight -= lr * model.weight.grad
        model.bias -= lr * model.bias.grad


def fit_clearing_first(model, x, y, steps=4):
    for _ in range(steps):
        model.weight.grad.zero_()  # expect: GG407
        model.bias.grad.zero_()  # expect: GG407
        loss = (model.predict(x) - y).pow(2).mean()
        loss.backward()
        sgd_update(model, 0.1)


def fit_clearing_after(model, x, y, steps=4):
    for _ in range(steps):
        loss = (model.predict(x) - y).pow(2).mean()
        loss.backward()
        sgd_update(model, 0.1)
        model.weight.grad.zero_()
        model.bias.grad.zero_()


def fit_checking(model, x, y, steps=4):
    for _ in range(steps):
        if model.weight.grad is not None:
            model.weight.grad.zero_()
            model.bias.grad.zero_()
        loss = (model.predict(x) - y).pow(2).mean()
        loss.backward()
        sgd_update(model, 0.1)


def fit_warmed(model, x, y, steps=4):
    for _ in range(steps):
        model.weight.grad.zero_()
        model.bias.grad.zero_()
        loss = (model.predict(x) - y).pow(2).mean()
        loss.backward()
        sgd_update(model, 0.1)


def main():
    torch.manual_seed(0)
    x, y = torch.randn(32, 3), torch.randn(32, 1)
    fit_clearing_after(Regressor(3), x, y)
    fit_checking(Regressor(3), x, y)
    warm = Regressor(3)
    (warm.predict(x) - y).pow(2).mean().backward()
    fit_warmed(warm, x, y)
    model = Regressor(3)
    fit_clearing_first(model, x, y)


if __name__ == "__main__":
    try:
        main()
    except AttributeError as error:
        assert "'NoneType' object has no attribute 'zero_'" in str(error)
    else:
        raise AssertionError("clearing gradients before the first backward ran")
    print("ok")
