"""A projection kept by `__init__` under a flag, read by `forward`, before an in-place ReLU
changes the input it kept (GG302).

`__init__` builds the projection shortcut only `if project:`; `forward` always runs it. An
instance built without it raises AttributeError at `self.proj`, so every forward that gets
past that line runs the 1x1 convolution, which keeps `x` for its weight gradient, and then
the body's `nn.ReLU(inplace=True)` overwrites `x`: the backward raises "one of the variables
needed for gradient computation has been modified by an inplace operation" (checked with
torch 2.13.0 by running this file). The second block keeps its down-sampling projection
in both blocks of an `if`/`elif` chain (no `else`): a read finds one of the two
convolutions, each of which keeps `x`.

Written for this corpus, after pre-activation residual blocks whose stack starts with an
in-place ReLU (https://github.com/pytorch/pytorch/issues/15428 discusses the error).
"""

import torch
from torch import nn


class ProjectedBlock(nn.Module):
    def __init__(self, cin, cout, project=True):
        super().__init__()
        self.body = nn.Sequential(nn.ReLU(inplace=True), nn.Conv2d(cin, cout, 3, padding=1))
        if project:
            self.proj = nn.Conv2d(cin, cout, 1, bias=False)

    def forward(self, x):
        skip = self.proj(x)
        return self.body(x) + skip  # expect: GG302


class StridedBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.stride = stride
        self.body = nn.Sequential(nn.ReLU(inplace=True), nn.Conv2d(cin, cout, 3, stride, 1))
        if stride == 2:
            self.down = nn.Conv2d(cin, cout, 1, 2, bias=False)
        elif cin != cout:
            self.down = nn.Conv2d(cin, cout, 1, bias=False)

    def forward(self, x):
        skip = self.down(x)
        out = self.body(x)  # expect: GG302
        return out + skip


def train_projected():
    stem = nn.Conv2d(3, 4, 3, padding=1)
    block = ProjectedBlock(4, 8)
    block(stem(torch.randn(2, 3, 8, 8))).sum().backward()


def train_strided():
    stem = nn.Conv2d(3, 4, 3, padding=1)
    block = StridedBlock(4, 8, 2)
    block(stem(torch.randn(2, 3, 8, 8))).sum().backward()


if __name__ == "__main__":
    torch.manual_seed(0)
    for case in (train_projected, train_strided):
        try:
            case()
        except RuntimeError as err:
            assert "modified by an inplace operation" in str(err), err
        else:
            raise SystemExit(f"{case.__name__}: no error")
