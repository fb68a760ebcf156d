"""Hand-built Elman RNN whose trainer monitors output-layer and input gradients.

Modelled on: https://discuss.pytorch.org/t/trying-to-understand-why-output-of-nn-linear-for-output-layer-isnt-retaining/40116 (counterpart)

Looks like the monitor that always saw None: after loss.backward() the trainer
reads `.grad` to watch the gradient signal at the output layer and at the
input.  But it reads the gradient of the output layer's weight
(`model.Why.weight`, a Parameter) and of the input `x`, which is created with
requires_grad=True; both are leaves, so backward() fills their `.grad`.
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

    def record(self, model, x):
        g_out = model.Why.weight.grad  # a Parameter: a leaf, .grad is filled
        g_in = x.grad                  # created with requires_grad=True: a leaf
        if g_out is None or g_in is None:
            self.records.append(None)
        else:
            self.records.append((g_out.norm().item(), g_in.abs().max().item()))

    def dead_fraction(self):
        return sum(r is None for r in self.records) / len(self.records)


def run(model, args, monitor):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.MSELoss()
    h = torch.zeros(1, args.hidden)
    for step in range(args.steps):
        x = torch.randn(1, args.inputs, requires_grad=True)
        target = torch.randn(1, args.outputs)
        opt.zero_grad()
        y, h = model(x, h.detach())
        loss = criterion(y, target)
        loss.backward()
        monitor.record(model, x)
        opt.step()
    return monitor


def main(argv=None):
    torch.manual_seed(0)
    args = get_args(argv)
    model = SingleRNN(args.inputs, args.hidden, args.outputs)
    return run(model, args, GradMonitor())


if __name__ == "__main__":
    monitor = main([])
    assert monitor.dead_fraction() == 0.0
    print("OK")
