"""A BatchNorm layer's state switched to requires_grad in a loop, integer counter included.

Reported in open-edge-platform/geti#237 (NNCF compression training): a module's state
holding a tensor of an integer dtype was asked to require gradients and training stopped
with "only Tensors of floating point dtype can require gradients". A BatchNorm1d/2d/3d or
SyncBatchNorm built with running statistics (the default) keeps an int64 buffer,
`num_batches_tracked`, next to its float running mean and variance: a loop over its
`buffers()`, `named_buffers()` or `state_dict(keep_vars=True)` that asks each tensor to
require grad reaches that counter and raises. So does a loop over a tuple of known tensors
one of which is integer.

Look-alikes: the same loops guarded by `is_floating_point()`, over an InstanceNorm (no
buffers by default), over a BatchNorm built with `track_running_stats=False` (no buffers)
or with a flag not known here, over a BatchNorm handed to other code or given a new
counter first, and over `parameters()` (always floating point).
"""

import torch
import torch.nn as nn


def adapt_buffers():
    bn = nn.BatchNorm2d(8)
    for t in bn.buffers():
        t.requires_grad_(True)  # expect: GG402


def adapt_state():
    net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
    for name, t in net.state_dict(keep_vars=True).items():
        t.requires_grad = True  # expect: GG402


def adapt_counter():
    bn = nn.BatchNorm1d(4)
    bn.num_batches_tracked.requires_grad_()  # expect: GG402


def adapt_pair():
    embeds = torch.randn(3, 4)
    ids = torch.randint(0, 5, (3,))
    for t in (embeds, ids):
        t.requires_grad_(True)  # expect: GG402


def guarded_state():
    bn = nn.BatchNorm2d(8)
    for name, t in bn.state_dict(keep_vars=True).items():
        if t.is_floating_point():
            t.requires_grad_(True)
    return bn


def skipped_state():
    bn = nn.BatchNorm2d(8)
    for t in bn.buffers():
        if not t.is_floating_point():
            continue
        t.requires_grad_(True)
    return bn


def instance_norm_buffers():
    norm = nn.InstanceNorm2d(8)
    for t in norm.buffers():
        t.requires_grad_(True)
    return norm


def untracked_buffers(track):
    off = nn.BatchNorm2d(8, track_running_stats=False)
    for t in off.buffers():
        t.requires_grad_(True)
    maybe = nn.BatchNorm2d(8, track_running_stats=track)
    for t in maybe.buffers():
        t.requires_grad_(True)
    return off, maybe


def without_counter(convert):
    handed = nn.BatchNorm2d(8)
    convert(handed)  # may drop or replace its buffers
    for t in handed.buffers():
        t.requires_grad_(True)
    dropped = nn.BatchNorm2d(8)
    dropped.register_buffer("num_batches_tracked", None)
    for t in dropped.buffers():
        t.requires_grad_(True)
    return handed, dropped


def _drop_counter(module):
    module.register_buffer("num_batches_tracked", None)


def parameters_only():
    bn = nn.BatchNorm2d(8)
    for p in bn.parameters():
        p.requires_grad_(True)
    return bn


if __name__ == "__main__":
    for buggy in (adapt_buffers, adapt_state, adapt_counter, adapt_pair):
        try:
            buggy()
        except RuntimeError as error:
            assert "floating point" in str(error), error
        else:
            raise AssertionError(f"{buggy.__name__} did not raise")
    guarded_state()
    skipped_state()
    instance_norm_buffers()
    untracked_buffers(False)
    without_counter(_drop_counter)
    parameters_only()
    print("ok")
