"""Hand-built Elman RNN whose trainer inspects the output layer's gradient.

Modelled on: https://discuss.pytorch.org/t/trying-to-understand-why-output-of-nn-linear-for-output-layer-isnt-retaining/40116

The forum user's RNN stored its intermediate results on `self` (L0_X, L1_H,
L2_Y) and, after `loss.backward()`, read `model.L2_Y.grad` to look at the
gradient arriving at the output layer, and always got None.  L2_Y is produced
by nn.Linear from tensors that require grad, so it is a non-leaf: autograd
computes its gradient on the way through but does not store it in `.grad`
unless `retain_grad()` was called on it before backward().  The trainer below
uses that None as "no gradient signal" in its monitoring, which silently
reports a dead output layer.
"""
import argparse

import torch
import torch.nn as nn


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--inputs", type=int, default=3)
    p.add_argument("--hidden", type=int, default=4)
    p.add_argument("--outputs", type=int, default=2)
    p.add_argument("--steps", type=int, default=5)
    return p.parse_args(argv)


class SingleRNN(nn.Module):
    def __init__(self, n_inputs, n_hidden, n_outputs):
        super().__init__()
        self.Wxh = nn.Linear(n_inputs, n_hidden, bias=False)
        self.Whh = nn.Linear(2 * n_hidden, n_hidden, bias=False)
        self.Why = nn.Linear(n_hidden, n_outputs, bias=False)

    def forward(self, X0, H0):
        self.L0_X = self.Wxh(X0)
        self.L1_H = torch.tanh(self.Whh(torch.cat((self.L0_X, H0), dim=1)))
        self.L2_Y = self.Why(self.L1_H)
        return self.L2_Y, self.L1_H


class GradMonitor:
    def __init__(self):
        self.records = []

    def record(self, model):
        g = model.L2_Y.grad  # bug: GG403
        self.records.append(None if g is None else g.norm().item())

    def dead_fraction(self):
        return sum(r is None for r in self.records) / len(self.records)


def run(model, args, monitor):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.MSELoss()
    h = torch.zeros(1, args.hidden)
    for step in range(args.steps):
        x = torch.randn(1, args.inputs)
        target = torch.randn(1, args.outputs)
        opt.zero_grad()
        y, h = model(x, h.detach())
        loss = criterion(y, target)
        loss.backward()
        monitor.record(model)
        opt.step()
    return monitor


def main(argv=None):
    torch.manual_seed(0)
    args = get_args(argv)
    model = SingleRNN(args.inputs, args.hidden, args.outputs)
    return run(model, args, GradMonitor())


if __name__ == "__main__":
    monitor = main([])
    if monitor.dead_fraction() == 1.0:
        print("BUGGY: output-layer gradient read as None after every backward()")
    else:
        print("gradients recorded", monitor.records[:2])
