"""Look-alikes of a branch taken on some pass: in-place changes no backward trips over (GG302).

Each loop runs over a known range and changes a tensor in place inside an `if` on the loop
variable, as `changed_on_a_pass_the_loop_certainly_takes.py` does, but no pass both changes
a tensor a graph kept and then calls a backward through it (checked with torch 2.13.0 by
running this file): the test never holds in the range, the branch ends the pass with
`continue`, the backward runs on the other passes only, the backward comes before the
change in the pass (the next pass builds a new graph), or the changed tensor was kept by
nothing (a linear layer keeps its input, not its output).
"""

import torch
from torch import nn
from torch.nn import functional as F


def never_on_these_passes():
    w = torch.randn(4, requires_grad=True)
    for step in range(1, 4):
        probs = torch.sigmoid(w)
        if step % 5 == 0:
            probs.mul_(255)
        probs.sum().backward()


def preview_passes_skip_the_update():
    w = torch.randn(4, requires_grad=True)
    for step in range(4):
        probs = torch.sigmoid(w)
        if step % 2 == 0:
            probs.mul_(255)
            print("preview only", probs[0].item())
            continue
        probs.sum().backward()


def backward_on_the_other_passes():
    w = torch.randn(4, requires_grad=True)
    for step in range(4):
        probs = torch.sigmoid(w)
        if step % 2 == 0:
            probs.mul_(255)
        if step % 2 == 1:
            probs.sum().backward()


def backward_before_the_change():
    w = torch.randn(4, requires_grad=True)
    for step in range(4):
        probs = torch.sigmoid(w)
        probs.sum().backward()
        if step == 0:
            probs.mul_(255)


def output_kept_by_nothing():
    layer = nn.Linear(4, 4)
    for step in range(3):
        h = layer(torch.randn(2, 4))
        if step == 0:
            h.add_(1.0)
        F.relu(h).sum().backward()


if __name__ == "__main__":
    never_on_these_passes()
    preview_passes_skip_the_update()
    backward_on_the_other_passes()
    backward_before_the_change()
    output_kept_by_nothing()
    print("all ran")
