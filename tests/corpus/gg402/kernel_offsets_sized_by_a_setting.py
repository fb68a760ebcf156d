"""Learnable kernel offsets sized by a command-line setting that a trainer hands on (GG402).

Modelled on https://github.com/chenyuntc/pytorch-book/issues/217: `t.arange(-2, 4)` used to
make floats and now makes int64, so asking the range for gradients raises "Only Tensors of
floating point and complex dtype can require gradients". Here the range is the set of tap
offsets of a smoothing kernel, built by a helper from a radius that `train(settings)` reads
off the parsed namespace and hands on (`kernel_offsets(settings.radius)`). The script parses
an empty command line, so the radius is the int default 3.
"""

import argparse

import torch


def kernel_offsets(radius):
    return torch.arange(-radius, radius, requires_grad=True)  # expect: GG402


def train(settings):
    offsets = kernel_offsets(settings.radius)
    signal = torch.randn(32)
    for _ in range(settings.steps):
        weights = torch.softmax(-(offsets**2) / settings.width, dim=0)
        smoothed = torch.nn.functional.conv1d(signal.view(1, 1, -1), weights.view(1, 1, -1))
        loss = smoothed.pow(2).mean()
        loss.backward()
    return offsets


def read_settings(argv):
    parser = argparse.ArgumentParser(description="fit a smoothing kernel")
    parser.add_argument("--radius", type=int, default=3)
    parser.add_argument("--width", type=float, default=2.0)
    parser.add_argument("--steps", type=int, default=2)
    return parser.parse_args(argv)


def main(argv):
    return train(read_settings(argv))


if __name__ == "__main__":
    try:
        main([])
    except RuntimeError as error:
        print("raises:", error)
    else:
        raise SystemExit("expected a RuntimeError")
