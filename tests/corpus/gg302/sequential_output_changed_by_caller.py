"""The output of an `nn.Sequential` whose last layer keeps its own result, changed in place
by the code that called it (GG302).

`ConvUnit` runs `self.conv_block`, a convolution, a norm and an `nn.ReLU(inplace=True)`,
then adds the shortcut into the result with `out += ...`. The ReLU kept that very tensor to
compute its gradient, so backward() raises "one of the variables needed for gradient
computation has been modified by an inplace operation". `BranchFusion` calls each
`nn.Sequential(nn.Linear, nn.Sigmoid)` of an `nn.ModuleList` in a list comprehension and
sums the branches into the first one in place: the sigmoid kept that first output.

Look-alikes that train: a block ending in `nn.Dropout` (which keeps its mask, not its
result), one ending in `nn.GELU` (which keeps its input), one adding out of place, and one
whose `nn.Sequential` gets another layer by `add_module` (a Linear, which keeps nothing of
its result).

Modelled on aupendu/zero-restore#7, where the branches of a selective-kernel layer, each
ending in a ReLU, were summed into the first branch's output in place and backward failed
(https://github.com/aupendu/zero-restore/issues/7), and on the residual blocks of
pytorch/vision#2092-style ResNets that write `out += identity` after a block's activation.
"""

import torch
from torch import nn


class ConvUnit(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv_block = nn.Sequential(
            nn.Conv2d(channels, channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(channels),
            nn.ReLU(inplace=True),
        )
        self.shortcut = nn.Conv2d(channels, channels, 1)

    def forward(self, x):
        out = self.conv_block(x)
        out += self.shortcut(x)  # expect: GG302
        return out


class BranchFusion(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.branches = nn.ModuleList(
            [nn.Sequential(nn.Linear(dim, dim), nn.Sigmoid()) for _ in range(3)]
        )

    def forward(self, x):
        outs = [branch(x) for branch in self.branches]
        fused = outs[0]
        fused += outs[1]  # expect: GG302
        return fused + outs[2]


class DropoutUnit(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.block = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Dropout(0.1))

    def forward(self, x):
        out = self.block(x)
        out += x
        return out


class GeluUnit(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.GELU())

    def forward(self, x):
        out = self.mlp(x)
        out += x
        return out


class OutOfPlaceUnit(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gate = nn.Sequential(nn.Linear(dim, dim), nn.Sigmoid())

    def forward(self, x):
        out = self.gate(x)
        out = out + x
        return out


class GrownUnit(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.stack = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())
        self.stack.add_module("proj", nn.Linear(dim, dim))

    def forward(self, x):
        out = self.stack(x)
        out += x
        return out


def main():
    torch.manual_seed(0)
    unit = ConvUnit(4)
    loss = unit(torch.randn(2, 4, 6, 6)).pow(2).mean()
    try:
        loss.backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error), error
    else:
        raise AssertionError("ConvUnit trained")
    fusion = BranchFusion(5)
    fused = fusion(torch.randn(3, 5)).pow(2).mean()
    try:
        fused.backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error), error
    else:
        raise AssertionError("BranchFusion trained")
    x = torch.randn(3, 5)
    dropped = DropoutUnit(5)
    dropped(x).pow(2).mean().backward()
    gelu = GeluUnit(5)
    gelu(x).pow(2).mean().backward()
    gated = OutOfPlaceUnit(5)
    gated(x).pow(2).mean().backward()
    grown = GrownUnit(5)
    grown(x).pow(2).mean().backward()
    print("ok: the kept outputs changed in place fail; the look-alikes train")

if __name__ == "__main__":
    main()
