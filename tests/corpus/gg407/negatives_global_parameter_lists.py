"""Look-alikes of a global parameter list cleared by a helper (GG407 must stay silent).

* `reset_after()` walks the global list only after a backward has filled every gradient.
* `reset_guarded()` skips a gradient that is still None.
* `refit()` clears the global list at the top of its loop, but `main()` ran `warm_up()`,
  whose backward filled every gradient, before calling it.
* `reset_handled()` is called only in an `except` handler, never on the way from the
  creation.

Every function runs below (torch 2.13.0) without an error.
"""

import torch
from torch import nn

BODY = nn.Linear(5, 4)
HEAD = nn.Linear(4, 2)
BODY_PARAMS = list(BODY.parameters())
HEAD_PARAMS = list(HEAD.parameters())
PARAMS = BODY_PARAMS + HEAD_PARAMS


def reset_after():
    for tensor in PARAMS:
        tensor.grad.zero_()


def reset_guarded():
    for tensor in PARAMS:
        if tensor.grad is not None:
            tensor.grad.zero_()


def warm_up():
    HEAD(BODY(torch.randn(1, 5))).sum().backward()


def reset_handled():
    for tensor in PARAMS:
        tensor.grad.zero_()


def train(batches):
    for batch in batches:
        reset_guarded()
        HEAD(BODY(batch)).pow(2).mean().backward()
        reset_after()


def refit(batches):
    for batch in batches:
        reset_after()
        HEAD(BODY(batch)).pow(2).mean().backward()


def main():
    warm_up()
    refit([torch.randn(3, 5) for _ in range(2)])
    try:
        train([torch.randn(3, 5) for _ in range(2)])
    except ValueError:
        reset_handled()


if __name__ == "__main__":
    main()
