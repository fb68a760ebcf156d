"""Ranges of known ints made parameters or asked for gradients (GG402).

Modelled on https://github.com/pytorch/pytorch/issues/14275 and
https://github.com/chenyuntc/pytorch-book/issues/217: `torch.arange` of ints makes an
int64 tensor (it used to make floats), so wrapping it to require grad raised "Only Tensors
of floating point and complex dtype can require gradients". Here the bounds are names the
analysis knows the ints of, and the range becomes a learnable parameter of a module or a
`Variable` that requires grad. The look-alikes convert first, turn gradients off, or use a
float bound.
"""

import torch
from torch import nn
from torch.autograd import Variable

BINS = 8
STEP = 2


class SoftBinning(nn.Module):
    def __init__(self):
        super().__init__()
        self.centers = nn.Parameter(torch.arange(0, BINS, STEP))  # expect: GG402

    def forward(self, weights):
        return (weights * self.centers).sum(-1)


class SoftBinningFixed(nn.Module):
    def __init__(self):
        super().__init__()
        self.centers = nn.Parameter(torch.arange(0, BINS, STEP).float())
        self.index = nn.Parameter(torch.arange(0, BINS, STEP), requires_grad=False)
        self.scale = nn.Parameter(torch.arange(0, BINS, 0.5))

    def forward(self, weights):
        return (weights * self.centers).sum(-1)


def curve_points():
    low = -2
    high = 4
    return Variable(torch.arange(low, high), requires_grad=True)  # expect: GG402


def offsets():
    shifts = torch.arange(0, BINS)
    shifts.requires_grad = True  # expect: GG402
    return shifts


if __name__ == "__main__":
    SoftBinningFixed()
    for case in (SoftBinning, curve_points, offsets):
        try:
            case()
        except RuntimeError as error:
            print("raises:", error)
        else:
            raise SystemExit("expected a RuntimeError")
