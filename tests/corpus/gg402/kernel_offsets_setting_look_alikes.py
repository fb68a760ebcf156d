"""Look-alikes of kernel offsets sized by a setting a trainer hands on (GG402 stays silent).

The same shape as kernel_offsets_sized_by_a_setting.py (after
https://github.com/chenyuntc/pytorch-book/issues/217), written so that it runs: the radius
setting is a float (`torch.arange` of a float bound makes float32), or the helper asks for
`dtype=torch.float32`, or the integer range never requires grad.
"""

import argparse

import torch


def float_offsets(radius):
    return torch.arange(-radius, radius, requires_grad=True)


def cast_offsets(radius):
    return torch.arange(-radius, radius, dtype=torch.float32, requires_grad=True)


def tap_indices(radius):
    return torch.arange(-radius, radius)


def train(settings):
    offsets = float_offsets(settings.radius)
    cast = cast_offsets(settings.taps)
    taps = tap_indices(settings.taps)
    signal = torch.randn(32)
    for _ in range(settings.steps):
        weights = torch.softmax(-(offsets**2) / settings.width, dim=0)
        weights = weights + 0.0 * cast.sum() + 0.0 * taps.sum()
        smoothed = torch.nn.functional.conv1d(signal.view(1, 1, -1), weights.view(1, 1, -1))
        loss = smoothed.pow(2).mean()
        loss.backward()
    return offsets


def read_settings(argv):
    parser = argparse.ArgumentParser(description="fit a smoothing kernel")
    parser.add_argument("--radius", type=float, default=3.0)
    parser.add_argument("--taps", type=int, default=3)
    parser.add_argument("--width", type=float, default=2.0)
    parser.add_argument("--steps", type=int, default=2)
    return parser.parse_args(argv)


def main(argv):
    return train(read_settings(argv))


if __name__ == "__main__":
    main([])
