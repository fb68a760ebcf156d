"""Look-alikes of a first-pass change: in-place updates in loops that keep every kept tensor
intact (GG302).

Each loop rebinds the name it changes in place, as in `changed_on_the_first_pass_of_a_loop.py`,
but no tensor a graph node kept is changed before the backward (checked with torch 2.13.0 by
running this file): the name is rebound to a fresh product before the change on every pass,
the tensor held before the loop was kept by nothing (a sum keeps nothing; a linear layer keeps
its input, not its output), or the change sits in a branch no pass of the range takes.
"""

import torch
from torch import nn


def rebound_before_the_change():
    w = torch.randn(5, requires_grad=True)
    gate = torch.sigmoid(w)
    for _ in range(3):
        gate = gate * 2
        gate.add_(1.0)
    gate.sum().backward()


def held_value_kept_by_nothing():
    w = torch.randn(5, requires_grad=True)
    layer = nn.Linear(5, 5)
    h = layer(w.unsqueeze(0)) + 1.0
    for _ in range(2):
        h += 0.5
        h = layer(h)
    h.sum().backward()


def change_on_no_pass():
    w = torch.randn(5, requires_grad=True)
    gate = torch.sigmoid(w)
    for step in range(3):
        if step > 5:
            gate.mul_(0.9)
        gate = torch.sigmoid(gate * 4)
    gate.sum().backward()


if __name__ == "__main__":
    rebound_before_the_change()
    held_value_kept_by_nothing()
    change_on_no_pass()
    print("all ran")
