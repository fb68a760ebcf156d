"""Convolution blocks written as `nn.Sequential` subclasses that add their layers by name.

Modelled on the report in tamarott/SinGAN#148: SinGAN's `ConvBlock` subclasses
`nn.Sequential` and registers `conv`, `norm` and `LeakyRelu` with `self.add_module(...)`;
its generator loop backpropagates through one fake image on every iteration with
`retain_graph=True` and steps the generator in between, which raises "one of the variables
needed for gradient computation has been modified by an inplace operation" under torch
2.13.0 on the second iteration (the block's convolution saved its weight). Written here
from scratch.

* `refine_one_fake`: the fake image is made once, before the refinement loop (the bug);
* `refine_fresh_fakes`: the fake image is made again on every iteration (no bug);
* `refine_then_step_once`: both losses backpropagated before the only step (no bug);
* `dense_unit_on_data`: a block whose only weighted layer is an `nn.Linear` given a plain
  data batch saves no weight (the Linear keeps its input, tanh its output): the second
  backward works after the step (no bug);
* `unit_called_directly`: the block itself, two losses, the step between them (the bug).
"""

import torch
from torch import nn

ROUNDS = 3


class ConvUnit(nn.Sequential):
    """conv -> batch norm -> leaky relu, registered by name."""

    def __init__(self, cin, cout):
        super().__init__()
        self.add_module("conv", nn.Conv2d(cin, cout, 3, padding=1))
        self.add_module("bn", nn.BatchNorm2d(cout))
        self.add_module("act", nn.LeakyReLU(0.2))


class DenseUnit(nn.Sequential):
    def __init__(self, width):
        super().__init__()
        self.add_module("fc", nn.Linear(width, width))
        self.add_module("act", nn.Tanh())


class Painter(nn.Module):
    def __init__(self, width=6):
        super().__init__()
        self.first = ConvUnit(3, width)
        self.second = ConvUnit(width, width)
        self.last = nn.Conv2d(width, 3, 3, padding=1)

    def forward(self, noise, base):
        return self.last(self.second(self.first(noise))) + base


def refine_one_fake():
    painter = Painter()
    opt = torch.optim.Adam(painter.parameters(), lr=1e-3)
    base = torch.zeros(1, 3, 8, 8)
    real = torch.rand(1, 3, 8, 8)
    fake = painter(torch.randn(1, 3, 8, 8), base)
    for step in range(ROUNDS):
        opt.zero_grad()
        loss = (fake - real).pow(2).mean()
        loss.backward(retain_graph=True)
        opt.step()  # expect: GG205


def refine_fresh_fakes():
    painter = Painter()
    opt = torch.optim.Adam(painter.parameters(), lr=1e-3)
    base = torch.zeros(1, 3, 8, 8)
    real = torch.rand(1, 3, 8, 8)
    for step in range(ROUNDS):
        fake = painter(torch.randn(1, 3, 8, 8), base)
        opt.zero_grad()
        loss = (fake - real).pow(2).mean()
        loss.backward(retain_graph=True)
        opt.step()


def refine_then_step_once():
    unit = ConvUnit(3, 3)
    opt = torch.optim.SGD(unit.parameters(), lr=0.1)
    out = unit(torch.randn(2, 3, 8, 8))
    opt.zero_grad()
    out.mean().backward(retain_graph=True)
    out.abs().mean().backward()
    opt.step()


def dense_unit_on_data():
    unit = DenseUnit(4)
    opt = torch.optim.SGD(unit.parameters(), lr=0.1)
    out = unit(torch.randn(5, 4))
    first = out.pow(2).mean()
    second = out.abs().mean()
    opt.zero_grad()
    first.backward(retain_graph=True)
    opt.step()
    second.backward()


def unit_called_directly():
    unit = ConvUnit(3, 3)
    opt = torch.optim.SGD(unit.parameters(), lr=0.1)
    out = unit(torch.randn(2, 3, 8, 8))
    first = out.pow(2).mean()
    second = out.abs().mean()
    opt.zero_grad()
    first.backward(retain_graph=True)
    opt.step()  # expect: GG205
    second.backward()


if __name__ == "__main__":
    for run in (
        refine_fresh_fakes,
        refine_then_step_once,
        dense_unit_on_data,
        refine_one_fake,
        unit_called_directly,
    ):
        try:
            run()
            print(run.__name__, "ok")
        except RuntimeError as err:
            print(run.__name__, "raised:", str(err).splitlines()[0][:90])
