"""Kept activations held in a written-out list, changed in place through the list (GG302).

A two-branch gate keeps its branches in a list: each branch ends in `torch.sigmoid`, which
keeps its own result for the backward pass. The first function sums the branches by
starting from the first one and adding the rest in place, `total += o` over `outs[1:]`:
the slice of a two-element list certainly holds one branch, so the loop runs, and its
first (only) pass adds into the tensor sigmoid kept. The second function shifts the first
branch through the list itself, `outs[0] += 1`, which runs the tensor's own in-place add.
Both backward passes raise "one of the variables needed for gradient computation has been
modified by an inplace operation" (checked with torch 2.13.0 by running this file).

Written for this corpus, after selective-kernel style fusions that start a sum from the
first branch (`fea_u = outs[0]; for f in outs[1:]: fea_u += f`); the fix is a copy
(`outs[0].clone()`) or an out-of-place sum.
"""

import torch
from torch import nn


class TwoGates(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.a = nn.Linear(dim, dim)
        self.b = nn.Linear(dim, dim)

    def forward(self, x):
        outs = [torch.sigmoid(self.a(x)), torch.sigmoid(self.b(x))]
        total = outs[0]
        for o in outs[1:]:
            total += o  # expect: GG302
        return total


def fused_gates():
    model = TwoGates()
    model(torch.randn(3, 4)).sum().backward()


def shifted_first_gate():
    w = torch.randn(5, requires_grad=True)
    outs = [torch.sigmoid(w), torch.tanh(2 * w)]
    outs[0] += 1  # expect: GG302
    (outs[0].sum() + outs[1].sum()).backward()


if __name__ == "__main__":
    torch.manual_seed(0)
    for case in (fused_gates, shifted_first_gate):
        try:
            case()
        except RuntimeError as err:
            assert "modified by an inplace operation" in str(err), err
        else:
            raise SystemExit(f"{case.__name__}: no error")
