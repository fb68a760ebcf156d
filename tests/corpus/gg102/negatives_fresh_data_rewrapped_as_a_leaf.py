"""Numbers of a tensor that never had a history, wrapped again as a leaf that requires
grad: nothing is lost, the new leaf is what the code differentiates. No GG102.

Optimising an input (a starting point drawn at random, converted through numpy for a
scipy-style routine and back), a finite-difference check on a copy of fresh data, and a
Python float from a fresh tensor made a leaf again: each `backward()` fills the leaf's
`.grad`, which is all the code asks for.
"""

import numpy as np
import torch


def optimise_a_starting_point(steps=3):
    start = torch.randn(4)
    point = torch.tensor(start.numpy(), requires_grad=True)
    optimizer = torch.optim.SGD([point], lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        value = (point**2).sum()
        value.backward()
        optimizer.step()
    return point


def gradient_of_a_fresh_copy():
    data = torch.linspace(0.0, 1.0, 5)
    copy = torch.tensor(np.asarray(data), requires_grad=True)
    copy.backward(torch.ones_like(copy))
    return copy.grad


def scalar_leaf_from_a_fresh_number():
    scale = torch.rand(1)
    leaf = torch.tensor(float(scale), requires_grad=True)
    (leaf * 3.0).backward()
    leaf.backward()
    return leaf.grad


if __name__ == "__main__":
    assert optimise_a_starting_point().grad is not None
    assert torch.equal(gradient_of_a_fresh_copy(), torch.ones(5))
    assert scalar_leaf_from_a_fresh_number() is not None
    print("OK")
