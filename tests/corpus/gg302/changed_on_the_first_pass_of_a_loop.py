"""A loop changes in place, on its first pass, the tensor a name held before it (GG302).

A small residual MLP squashes its input with `torch.tanh`, which keeps its own result for
the backward pass, and then runs a stack of residual updates, each written `h += ...` and
followed by `h = torch.tanh(h)`. The loop rebinds `h`, so from the second pass on `h` is
the new activation; but the stack certainly runs (two layers), and on its first pass `h`
is still the tensor the first `tanh` kept: `h += layer(h)` changes it, and the backward
raises "one of the variables needed for gradient computation has been modified by an
inplace operation" (checked with torch 2.13.0 by running this file). The second function
does the same to a sigmoid gate over a known range of refinement steps.

Written for this corpus: residual stacks in real code write `h = h + layer(h)` (or add
before the activation, as ResNet does); the `+=` on a kept activation is the bug.
"""

import torch
from torch import nn


class ResidualTanhMLP(nn.Module):
    def __init__(self, dim=6):
        super().__init__()
        self.inp = nn.Linear(4, dim)
        self.layers = nn.ModuleList([nn.Linear(dim, dim), nn.Linear(dim, dim)])
        self.out = nn.Linear(dim, 1)

    def forward(self, x):
        h = torch.tanh(self.inp(x))
        for layer in self.layers:
            h += layer(h)  # expect: GG302
            h = torch.tanh(h)
        return self.out(h)


def fit_mlp():
    torch.manual_seed(0)
    model = ResidualTanhMLP()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()


def refine_gate():
    w = torch.randn(5, requires_grad=True)
    gate = torch.sigmoid(w)
    for _ in range(3):
        gate.mul_(0.9)  # expect: GG302
        gate = torch.sigmoid(gate * 4)
    gate.sum().backward()


if __name__ == "__main__":
    for run in (fit_mlp, refine_gate):
        try:
            run()
        except RuntimeError as err:
            print(run.__name__, "raises:", str(err).splitlines()[0][:90])
