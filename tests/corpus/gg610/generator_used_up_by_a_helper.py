"""A parameter generator handed to a helper of the file that iterates it, then to the
optimizer.

`describe(params)` sums the sizes of the parameters with a generator expression over its
argument, which uses the generator up; the optimizer built from the same `params` gets
nothing and raises "optimizer got an empty parameter list" (checked with torch 2.13.0).
Helpers that may stop early or never iterate leave it alone. Found by a blind corpus a
helper wrote for the team (a forecaster's setup code).
"""

import torch
from torch import nn


def describe(params):
    count = sum(p.numel() for p in params if p.requires_grad)
    print(f"trainable parameters: {count:,}")
    return count


def first_shape(params):
    for p in params:
        return tuple(p.shape)
    return None


def maybe_describe(params, verbose):
    if not verbose:
        return 0
    return sum(p.numel() for p in params)


def count_if(params, verbose):
    return sum(p.numel() for p in params) if verbose else 0


def setup(hidden):
    model = nn.Linear(4, hidden)
    params = model.parameters()
    describe(params)
    return torch.optim.Adam(params, lr=1e-3)  # expect: GG610


def setup_peeking(hidden):
    model = nn.Linear(4, hidden)
    params = model.parameters()
    first_shape(params)
    return torch.optim.Adam(params, lr=1e-3)


def setup_quiet(hidden):
    model = nn.Linear(4, hidden)
    params = model.parameters()
    maybe_describe(params, verbose=False)
    return torch.optim.Adam(params, lr=1e-3)


def setup_counting_if(hidden):
    model = nn.Linear(4, hidden)
    params = model.parameters()
    count_if(params, verbose=False)
    return torch.optim.Adam(params, lr=1e-3)


if __name__ == "__main__":
    try:
        setup(2)
    except ValueError as error:
        assert "empty parameter list" in str(error)
    else:
        raise AssertionError("expected the optimizer to get no parameters")
    setup_peeking(2)
    setup_quiet(2)
    setup_counting_if(2)
