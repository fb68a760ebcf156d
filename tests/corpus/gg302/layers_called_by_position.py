"""Layers of an nn.Sequential called one by one by position, and a write into a kept
activation (GG302).

Code that needs an intermediate activation often calls the layers of a Sequential one at a
time (`net[0](x)`, then `net[1](...)`). A layer held at a known position is that layer, so
`net[1]` is the nn.Sigmoid that keeps its output for backward: masking a column of that
output in place makes `loss.backward()` raise "one of the variables needed for gradient
computation has been modified by an inplace operation" (checked with torch 2.13.0). The
same code with the Sequential handed in as a parameter is not found yet: the call site's
facts reach the callee's run, but that run records no in-place change. The
look-alikes mask a copy, mask the Linear's output before the sigmoid (nn.Linear keeps its
input, not its output), or mask out of place.
"""

import torch
from torch import nn


def masked_probe(x: torch.Tensor) -> torch.Tensor:
    net = nn.Sequential(nn.Linear(4, 4), nn.Sigmoid(), nn.Linear(4, 1))
    gates = net[1](net[0](x))
    gates[:, 0] = 0.0  # expect: GG302
    return net[2](gates).sum()


def masked_copy(x: torch.Tensor) -> torch.Tensor:
    net = nn.Sequential(nn.Linear(4, 4), nn.Sigmoid(), nn.Linear(4, 1))
    gates = net[1](net[0](x)).clone()
    gates[:, 0] = 0.0
    return net[2](gates).sum()


def masked_before_the_sigmoid(x: torch.Tensor) -> torch.Tensor:
    net = nn.Sequential(nn.Linear(4, 4), nn.Sigmoid(), nn.Linear(4, 1))
    scores = net[0](x)
    scores[:, 0] = -1e4
    return net[2](net[1](scores)).sum()


def masked_out_of_place(x: torch.Tensor) -> torch.Tensor:
    net = nn.Sequential(nn.Linear(4, 4), nn.Sigmoid(), nn.Linear(4, 1))
    gates = net[1](net[0](x))
    keep = torch.ones_like(gates)
    keep[:, 0] = 0.0
    return net[2](gates * keep).sum()


if __name__ == "__main__":
    x = torch.randn(3, 4)
    masked_copy(x).backward()
    masked_before_the_sigmoid(x).backward()
    masked_out_of_place(x).backward()
    try:
        masked_probe(x).backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error), error
    else:
        raise SystemExit("expected a RuntimeError")
