"""Learnable bin centres laid out with `torch.arange` from numbers the constructor computes
out of its arguments (GG402).

A quantizing head spaces its centres `span // levels` apart: every construction in the file
passes ints (`Quantizer(levels)` from a head built as `Head(4)`, `span` left at its default
12), so the stride is the int 3 and `torch.arange(0, span, stride)` is an int64 range. A
parameter requires grad, so `nn.Parameter(...)` of it raises "Only Tensors of floating point
and complex dtype can require gradients" (checked with torch 2.13.0 below). The same mistake
is reported in https://github.com/pytorch/pytorch/issues/7021 for `torch.arange`.

The look-alikes divide with `/` (a float stride makes a float range), pass a float span, or
are built once with ints and once with floats (then what the constructor gets is not
certain).
"""

import torch
from torch import nn


class Quantizer(nn.Module):
    def __init__(self, levels, span=12):
        super().__init__()
        stride = span // levels
        self.centres = nn.Parameter(torch.arange(0, span, stride))  # expect: GG402

    def forward(self, x):
        return (x.unsqueeze(-1) - self.centres).abs().argmin(-1)


class Head(nn.Module):
    def __init__(self, levels):
        super().__init__()
        self.proj = nn.Linear(8, 1)
        self.bins = Quantizer(levels)

    def forward(self, x):
        return self.bins(self.proj(x))


# --- look-alikes ---------------------------------------------------------------------------


class EvenQuantizer(nn.Module):
    def __init__(self, levels, span=12):
        super().__init__()
        stride = span / levels
        self.centres = nn.Parameter(torch.arange(0, span, stride))


class WideQuantizer(nn.Module):
    def __init__(self, levels, span):
        super().__init__()
        self.centres = nn.Parameter(torch.arange(0, span, span // levels))


class MixedQuantizer(nn.Module):
    def __init__(self, levels, span=12):
        super().__init__()
        self.centres = nn.Parameter(torch.arange(0, span, span // levels))


def build(size):
    even = EvenQuantizer(4)
    wide = WideQuantizer(4, span=12.0)
    mixed = [MixedQuantizer(4, span=12.0), MixedQuantizer(2, span=float(size))]
    return even, wide, mixed


if __name__ == "__main__":
    print([type(m).__name__ for m in build(6)[:2]])
    try:
        Head(4)
    except RuntimeError as error:
        print(f"raises: {error}")
    else:
        raise SystemExit("expected a RuntimeError")
