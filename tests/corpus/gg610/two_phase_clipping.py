"""Two-phase gradient clipping walks a parameter generator twice (GG610).

Modelled on https://github.com/pytorch/torchtitan/pull/1258: a clipping helper computed the
total norm over `parameters` and then handed the same `parameters` to
`torch.nn.utils.clip_grads_with_norm_`; given `model.parameters()`, a generator, the first
walk exhausted it and the clipping phase saw no parameters, so nothing was clipped and
nothing said so. Here the two phases run in the training step on one generator bound to a
name. The look-alike makes a list first.
"""

import torch
from torch import nn


def train_step(model, optimizer, x, y, max_norm=0.1):
    optimizer.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    params = model.parameters()
    total = torch.nn.utils.get_total_norm([p.grad for p in params])
    torch.nn.utils.clip_grads_with_norm_(params, max_norm, total)  # expect: GG610
    optimizer.step()
    return total


def train_step_listed(model, optimizer, x, y, max_norm=0.1):
    optimizer.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    params = list(model.parameters())
    total = torch.nn.utils.get_total_norm([p.grad for p in params])
    torch.nn.utils.clip_grads_with_norm_(params, max_norm, total)
    optimizer.step()
    return total


def main():
    torch.manual_seed(0)
    x, y = torch.randn(8, 4), torch.randn(8, 2) * 100
    norms = []
    for listed in (False, True):
        model = nn.Linear(4, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
        if listed:
            train_step_listed(model, optimizer, x, y)
        else:
            train_step(model, optimizer, x, y)
        norms.append(torch.nn.utils.get_total_norm([p.grad for p in model.parameters()]))
    return norms


if __name__ == "__main__":
    unclipped, clipped = main()
    # The silent effect: the generator version leaves the gradients unclipped.
    assert unclipped > 1.0 and clipped <= 0.1 + 1e-6
    print("the generator version clipped nothing")
