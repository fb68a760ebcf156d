"""A per-sample loss sized by settings a trainer object keeps (GG501).

Modelled on the shape of https://github.com/xxlong0/SparseNeuS/issues/42, written anew: a
runner object takes the namespace `parse_args([])` returns, keeps it as `self.opts` in its
constructor, and a later method draws a batch of `self.opts.samples` rows; a helper scores
it with `reduction="none"` and the loss goes to `backward()` as a vector. With an empty list
argparse ignores `sys.argv`, so every setting is its default, in every method of the object
as much as where the namespace was made: nothing else stores `self.opts`, and no code of the
file stores into an attribute of a namespace.

Look-alikes: the same per-sample loss reduced with `.mean()`, summed by `reduction="sum"`,
given an explicit `gradient=`; and a runner given the namespace of `parse_args()`, whose
defaults the command line may override (run below with a batch of one sample: a
one-element loss backpropagates fine), so its shape is unknown.
"""

import argparse
import sys

import torch
from torch import nn
from torch.nn import functional as F


def fixed_settings():
    parser = argparse.ArgumentParser(description="per-sample regression")
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--features", type=int, default=5)
    parser.add_argument("--lr", type=float, default=0.05)
    return parser.parse_args([])


def command_line_settings():
    parser = argparse.ArgumentParser(description="per-sample regression")
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--features", type=int, default=5)
    parser.add_argument("--lr", type=float, default=0.05)
    return parser.parse_args()


def per_sample_error(pred, target):
    return F.smooth_l1_loss(pred.squeeze(-1), target, reduction="none")


class Runner:
    def __init__(self, opts):
        self.opts = opts
        self.net = nn.Sequential(nn.Linear(opts.features, 8), nn.Tanh(), nn.Linear(8, 1))
        self.optim = torch.optim.SGD(self.net.parameters(), lr=opts.lr)

    def draw(self):
        inputs = torch.randn(self.opts.samples, self.opts.features)
        return inputs, torch.randn(self.opts.samples)

    def step_unreduced(self):
        inputs, target = self.draw()
        loss = per_sample_error(self.net(inputs), target)
        self.optim.zero_grad()
        loss.backward()  # expect: GG501
        self.optim.step()

    def step_mean(self):
        inputs, target = self.draw()
        loss = per_sample_error(self.net(inputs), target).mean()
        self.optim.zero_grad()
        loss.backward()
        self.optim.step()

    def step_summed(self):
        inputs, target = self.draw()
        loss = F.smooth_l1_loss(self.net(inputs).squeeze(-1), target, reduction="sum")
        self.optim.zero_grad()
        loss.backward()
        self.optim.step()

    def step_weighted(self):
        inputs, target = self.draw()
        loss = per_sample_error(self.net(inputs), target)
        self.optim.zero_grad()
        loss.backward(gradient=torch.full_like(loss, 1.0 / self.opts.samples))
        self.optim.step()


class CommandLineRunner:
    def __init__(self, opts):
        self.opts = opts
        self.net = nn.Linear(opts.features, 1)

    def step(self):
        inputs = torch.randn(self.opts.samples, self.opts.features)
        loss = per_sample_error(self.net(inputs), torch.randn(self.opts.samples))
        loss.backward()


if __name__ == "__main__":
    runner = Runner(fixed_settings())
    runner.step_mean()
    runner.step_summed()
    runner.step_weighted()
    sys.argv = [sys.argv[0], "--samples", "1"]
    CommandLineRunner(command_line_settings()).step()
    try:
        runner.step_unreduced()
    except RuntimeError as error:
        assert "scalar outputs" in str(error)
    else:
        raise AssertionError("backward of a per-sample loss ran")
    print("ok")
