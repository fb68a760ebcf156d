"""A clipping helper whose parameter every caller binds to `model.parameters()` (GG610).

`clip_to_norm(params, max_norm)` first sums the squared gradients over `params`, then loops
over `params` again to rescale them. Both calls of the file hand it a fresh generator
(`model.parameters()`, once by keyword): the first loop uses it up, the rescaling loop runs
zero times, and the gradients are never clipped (checked with torch 2.13.0 below).

The look-alikes iterate their parameter twice too, but each is safe or unknown: a helper
called with a list and a tuple, one re-bound to a wrapper that lists its argument (the
name is handed to `listing` as a value, so the calls of the file do not reach the `def` as
written), and one iterating its parameter a single time.

Modelled on pytorch/pytorch#2954, where a norm loop followed by a dividing loop over the
same `model.parameters()` generator is the example of broken gradient clipping
(https://github.com/pytorch/pytorch/issues/2954).
"""

import torch
from torch import nn


def clip_to_norm(params, max_norm):
    total = torch.zeros(())
    for p in params:
        total += (p.grad**2).sum()
    norm = float(total.sqrt())
    if norm > max_norm:
        for p in params:  # expect: GG610
            p.grad.mul_(max_norm / norm)
    return norm


def clip_listed(params, max_norm):
    norm = float(torch.sqrt(sum((p.grad**2).sum() for p in params)))
    for p in params:
        p.grad.mul_(min(1.0, max_norm / norm))
    return norm


def listing(function):
    def wrapper(params, *args):
        return function(list(params), *args)

    return wrapper


def clip_wrapped(params, max_norm):
    norm = float(torch.sqrt(sum((p.grad**2).sum() for p in params)))
    for p in params:
        p.grad.mul_(min(1.0, max_norm / norm))
    return norm


def squared_norm(params):
    return float(sum((p.grad**2).sum() for p in params))


clip_wrapped = listing(clip_wrapped)


def grad_norm(model):
    return float(torch.sqrt(sum((p.grad**2).sum() for p in model.parameters())))


def backward(model):
    model.zero_grad()
    model(10 * torch.ones(8, 4)).pow(2).sum().backward()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Linear(4, 2)

    backward(model)
    clip_to_norm(model.parameters(), 1.0)
    assert grad_norm(model) > 10.0, "the rescaling loop ran"
    backward(model)
    clip_to_norm(max_norm=1.0, params=model.parameters())
    assert grad_norm(model) > 10.0

    backward(model)
    clip_listed(list(model.parameters()), 1.0)
    assert abs(grad_norm(model) - 1.0) < 1e-4

    backward(model)
    clip_listed(tuple(model.parameters()), 1.0)
    assert abs(grad_norm(model) - 1.0) < 1e-4

    backward(model)
    clip_wrapped(model.parameters(), 1.0)
    assert abs(grad_norm(model) - 1.0) < 1e-4

    backward(model)
    assert squared_norm(model.parameters()) > 100.0
    print("ok")
