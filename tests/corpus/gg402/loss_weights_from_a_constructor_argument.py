"""Learnable per-task loss weights started from values a constructor is given (GG402).

A multi-task criterion keeps one log-weight per task and starts them from what its
constructor is handed. Every construction in the file passes a list of ints (`[0, 0]`, or
the `"start"` entry of an unchanged settings dict, through a builder), so
`torch.tensor(start, requires_grad=True)` infers int64 and raises "Only Tensors of floating
point and complex dtype can require gradients" (checked with torch 2.13.0 below).

The look-alikes are given floats, or pass `dtype=torch.float32`, or are constructed once with
ints and once with values read at run time (then the dtype is not certain).
"""

import sys

import torch
import torch.nn.functional as F

SETTINGS = {"tasks": {"start": [0, 0]}, "lr": 0.01}


class WeightedTasks:
    def __init__(self, start):
        self.log_weights = torch.tensor(start, requires_grad=True)  # expect: GG402

    def __call__(self, first, second):
        w = torch.exp(-self.log_weights)
        return w[0] * first + w[1] * second + self.log_weights.sum()


def build(settings):
    return WeightedTasks(settings["tasks"]["start"])


# --- look-alikes ---------------------------------------------------------------------------


class FloatTasks:
    def __init__(self, start):
        self.log_weights = torch.tensor(start, requires_grad=True)


class CastTasks:
    def __init__(self, start):
        self.log_weights = torch.tensor(start, dtype=torch.float32, requires_grad=True)


class ReadTasks:
    def __init__(self, start):
        self.log_weights = torch.tensor(start, requires_grad=True)


def build_others():
    given = [float(a) for a in sys.argv[1:3]] or [0.5, 0.5]
    return (
        FloatTasks([0.0, 0.0]),
        CastTasks([0, 0]),
        ReadTasks([0.0, 0.0]),
        ReadTasks(given),
    )


def main():
    others = build_others()
    first = F.mse_loss(torch.randn(3, requires_grad=True), torch.zeros(3))
    (first * torch.exp(-others[0].log_weights).sum()).backward()
    try:
        build(SETTINGS)
    except RuntimeError as error:
        print(f"raises: {error}")
        return True
    return False


if __name__ == "__main__":
    if not main():
        raise SystemExit("expected a RuntimeError")
