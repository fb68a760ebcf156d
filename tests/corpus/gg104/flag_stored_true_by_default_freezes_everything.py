"""A `store_true` flag whose default is True freezes the whole model on every run (GG104).

Modelled on https://github.com/vllm-project/speculators/pull/297: an option declared with
`action="store_true"` and `default=True` can never be switched off (the flag only stores
True, and True is already the default), which the fix replaced by
`argparse.BooleanOptionalAction`. Here the always-on option is `--freeze`, meant for a
linear-probe run; the helper it guards freezes every parameter, so the training step finds
none requiring grad and `loss.backward()` raises "element 0 of tensors does not require grad
and does not have a grad_fn" whatever the command line holds. The parser is named `p` like
the loop variable of `freeze()`, in another scope.

Look-alikes (each freezing in place under its option): a `store_false` option with
`default=True` (the flag turns it off: run below with the flag given, nothing is frozen), and
a `store_true` option with the usual default False.
"""

import argparse
import sys

import torch
from torch import nn


def parse_settings():
    p = argparse.ArgumentParser()
    p.add_argument("--freeze", action="store_true", default=True)
    p.add_argument("--no-freeze-encoder", dest="freeze_encoder", action="store_false", default=True)
    p.add_argument("--freeze-head", action="store_true")
    return p.parse_args()


def freeze(module):
    for p in module.parameters():  # expect: GG104
        p.requires_grad = False


def train_always_frozen():
    args = parse_settings()
    model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
    if args.freeze:
        freeze(model)
    loss = model(torch.randn(4, 3)).pow(2).mean()
    loss.backward()


def train_encoder_maybe_frozen():
    args = parse_settings()
    model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
    if args.freeze_encoder:
        model.requires_grad_(False)
    loss = model(torch.randn(4, 3)).pow(2).mean()
    loss.backward()


def train_head_maybe_frozen():
    args = parse_settings()
    model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
    if args.freeze_head:
        model.requires_grad_(False)
    loss = model(torch.randn(4, 3)).pow(2).mean()
    loss.backward()


if __name__ == "__main__":
    sys.argv = [sys.argv[0], "--no-freeze-encoder"]
    train_encoder_maybe_frozen()
    train_head_maybe_frozen()
    try:
        train_always_frozen()
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("backward through a frozen model ran")
    print("ok")
