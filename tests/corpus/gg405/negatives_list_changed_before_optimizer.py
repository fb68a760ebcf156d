"""A computed tensor listed with leaves, then taken out of the list before the optimizer is
built: no GG405.

A list that held a non-leaf tensor no longer holds it after `remove`, `pop` or `del`, so
the optimizer gets only leaves and builds fine (tried with torch 2.13.0: each function
below returns an optimizer). Which element such a change takes out depends on values the
analysis does not follow (the index, the order after a sort), so after any of them the
list's known elements are forgotten; what every element may be is kept. The last function
is the bug itself, for contrast: another list is changed, the optimizer's still holds the
scaled tensor.
"""

import torch


def scaled_start(size):
    return torch.randn(size, requires_grad=True) * 0.1


def without_the_scaled_one(size):
    bias = torch.zeros(size, requires_grad=True)
    scaled = scaled_start(size)
    params = [scaled, bias]
    params.remove(scaled)  # found by identity first: no tensor comparison
    return torch.optim.SGD(params, lr=0.1)


def last_one_popped(size):
    bias = torch.zeros(size, requires_grad=True)
    scaled = torch.randn(size, requires_grad=True) * 0.1
    params = [bias, scaled]
    params.pop()
    return torch.optim.SGD(params, lr=0.1)


def last_one_deleted(size):
    bias = torch.zeros(size, requires_grad=True)
    scaled = torch.randn(size, requires_grad=True) * 0.1
    params = [bias, scaled]
    del params[1]
    return torch.optim.Adam(params, lr=0.1)


def cleared_and_refilled(size):
    scaled = torch.randn(size, requires_grad=True) * 0.1
    params = [scaled]
    params.clear()
    params.append(torch.zeros(size, requires_grad=True))
    return torch.optim.SGD(params, lr=0.1)


def another_list_changed(size):
    bias = torch.zeros(size, requires_grad=True)
    scaled = torch.randn(size, requires_grad=True) * 0.1  # expect: GG405
    params = [bias, scaled]
    frozen = [scaled, bias]
    frozen.remove(scaled)
    del frozen[0]
    return torch.optim.SGD(params, lr=0.1)
