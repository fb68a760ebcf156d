"""Offsets and shifted ranges computed from integer tensors, then made parameters (GG402).

Relative-position tables and shifted bucket ids are often computed with arithmetic on
`torch.arange` (`pos[None, :] - pos[:, None]`, `torch.arange(n) + 1`): integer tensors in,
an int64 tensor out, so `nn.Parameter(...)` of the result raises "Only Tensors of floating
point and complex dtype can require gradients" (checked with torch 2.13.0; the same error as
https://github.com/pytorch/pytorch/issues/14275, where `arange` had become int64).

Silent: the same offsets kept as a buffer, scaled by a float first, divided with `/`, or
cast with `.float()`.
"""

import torch
from torch import nn

WINDOW = 9


class RelativeBias(nn.Module):
    def __init__(self, heads=4):
        super().__init__()
        pos = torch.arange(WINDOW)
        self.table = nn.Parameter(torch.zeros(2 * WINDOW - 1, heads))
        self.offsets = nn.Parameter(pos[None, :] - pos[:, None])  # expect: GG402

    def forward(self):
        return self.table[self.offsets + WINDOW - 1]


class ShiftedBuckets(nn.Module):
    def __init__(self):
        super().__init__()
        self.ids = nn.Parameter(torch.arange(WINDOW) * 2 + 1)  # expect: GG402

    def forward(self, x):
        return x[..., self.ids]


class BufferedOffsets(nn.Module):
    def __init__(self, heads=4):
        super().__init__()
        pos = torch.arange(WINDOW)
        self.table = nn.Parameter(torch.zeros(2 * WINDOW - 1, heads))
        self.register_buffer("offsets", pos[None, :] - pos[:, None])

    def forward(self):
        return self.table[self.offsets + WINDOW - 1]


class LearnedScales(nn.Module):
    def __init__(self):
        super().__init__()
        pos = torch.arange(WINDOW)
        self.scaled = nn.Parameter((pos - WINDOW // 2) * 0.1)
        self.halved = nn.Parameter(pos / 2)
        self.cast = nn.Parameter((pos[None, :] - pos[:, None]).float())

    def forward(self, x):
        return x * self.scaled + self.halved + self.cast.mean()


if __name__ == "__main__":
    BufferedOffsets()()
    LearnedScales()(torch.randn(WINDOW))
    for cls in (RelativeBias, ShiftedBuckets):
        try:
            cls()
        except RuntimeError as error:
            print(cls.__name__, "raises:", error)
