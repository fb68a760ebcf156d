"""Look-alikes: a namespace of fixed settings a trainer keeps, but may not keep (GG501).

The runner keeps the namespace `parse_args([])` returns, as in
`settings_namespace_kept_by_a_trainer.py`, but its `resize` method stores another object in
`self.opts`, and a caller may hand it settings for a batch of one sample (run below): what
`self.opts.samples` holds in `step` is not certain, so neither is the loss's shape. A
second trainer's settings are changed through an attribute store (`self.opts.samples = 1`),
so that setting is unknown in the whole file.
"""

import argparse
from types import SimpleNamespace

import torch
from torch import nn
from torch.nn import functional as F


def fixed_settings():
    parser = argparse.ArgumentParser(description="per-sample regression")
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--features", type=int, default=5)
    return parser.parse_args([])


class ResizableRunner:
    def __init__(self, opts):
        self.opts = opts
        self.net = nn.Linear(opts.features, 1)

    def resize(self, opts):
        self.opts = opts

    def step(self):
        inputs = torch.randn(self.opts.samples, self.opts.features)
        loss = F.l1_loss(self.net(inputs).squeeze(-1), torch.zeros(self.opts.samples), reduction="none")
        loss.backward()


class ShrunkRunner:
    def __init__(self, opts):
        self.opts = opts
        self.net = nn.Linear(opts.features, 1)

    def shrink(self):
        self.opts.samples = 1

    def step(self):
        inputs = torch.randn(self.opts.samples, self.opts.features)
        loss = F.l1_loss(self.net(inputs).squeeze(-1), torch.zeros(self.opts.samples), reduction="none")
        loss.backward()


if __name__ == "__main__":
    runner = ResizableRunner(fixed_settings())
    runner.resize(SimpleNamespace(samples=1, features=5))
    runner.step()
    shrunk = ShrunkRunner(fixed_settings())
    shrunk.shrink()
    shrunk.step()
    print("ok")
