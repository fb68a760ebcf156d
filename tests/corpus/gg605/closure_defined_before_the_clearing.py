"""An LBFGS closure defined before `zero_grad()`: its backward runs inside `step` (GG605).

`optimizer.step(closure)` calls the closure, which computes the loss and backpropagates;
only then does the step read the gradients. A `zero_grad()` written after the closure's
definition and before `step(closure)` clears nothing the step needs: the closure's body
has not run yet. The buggy function, for contrast, backpropagates in its own body, then
clears, then steps on nothing (checked with torch 2.13.0 below: its weights never move).

Modelled on the L-BFGS examples whose closure is defined apart from the `step(closure)`
call (https://gist.github.com/tuelwer/0b52817e9b6251d940fd8e2921ec5e20, and the closure
contract of https://docs.pytorch.org/docs/stable/generated/torch.optim.Optimizer.step.html).
A finding here was reported by a helper while writing GG407 look-alikes.
"""

import torch
import torch.nn.functional as F
from torch import nn


def fit_with_closure(model, batches):
    optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=4)
    for x, y in batches:

        def closure():
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            return loss

        optimizer.zero_grad()
        optimizer.step(closure)


def fit_cleared_after_backward(model, batches):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    for x, y in batches:
        F.mse_loss(model(x), y).backward()
        optimizer.zero_grad()  # expect: GG605
        optimizer.step()


def main():
    torch.manual_seed(0)
    batches = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(3)]
    model = nn.Linear(3, 1)
    before = model.weight.detach().clone()
    fit_with_closure(model, batches)
    assert not torch.equal(before, model.weight)
    still = nn.Linear(3, 1)
    before = still.weight.detach().clone()
    fit_cleared_after_backward(still, batches)
    assert torch.equal(before, still.weight)


if __name__ == "__main__":
    main()
