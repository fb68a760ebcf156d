"""Look-alikes of GG405 for tensors a method keeps on `self` and another method optimizes.

A temperature-scaling calibrator keeps `self.scale`, a product of its raw leaf, but its
`prepare` runs only under `torch.no_grad()` here: the product has no history, is a leaf,
and the optimizer takes it (checked with torch 2.13.0 below). A second helper keeps a
detached copy made a leaf again (`.detach().requires_grad_()`), which an optimizer takes
too. In the spirit of https://forum.pyro.ai/t/try-to-understand-param-with-constraints/4761
(whether what reaches the optimizer is a leaf decides it), with code that runs.
"""

import torch


class Calibrator:
    def __init__(self):
        self.raw_scale = torch.ones(1, requires_grad=True)

    def prepare(self, logits):
        self.scale = self.raw_scale * logits.std()

    def optimizer(self):
        return torch.optim.SGD([self.scale], lr=0.1)


class Warmstart:
    def begin(self, guess):
        self.offset = (guess * 0.5).detach().requires_grad_()

    def optimizer(self):
        return torch.optim.Adam([self.offset], lr=0.1)


def calibrate(logits):
    calibrator = Calibrator()
    with torch.no_grad():
        calibrator.prepare(logits)
    return calibrator.optimizer()


def warm(guess):
    helper = Warmstart()
    helper.begin(guess)
    return helper.optimizer()


if __name__ == "__main__":
    print(calibrate(torch.randn(4, 3)))
    print(warm(torch.randn(3, requires_grad=True)))
