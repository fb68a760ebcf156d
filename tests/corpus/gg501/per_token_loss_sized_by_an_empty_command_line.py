"""A per-token loss left unreduced, sized by settings parsed from an empty command line (GG501).

Modelled on https://github.com/z814081807/DeepNER/issues/19: a tagger built its criterion
with `reduction="none"`, so the loss held one value per token, and `loss.backward()` failed
with "grad can be implicitly created only for scalar outputs"; the maintainer's answer was to
keep the default mean reduction. Here a per-token score regressor makes the same mistake with
`F.mse_loss(..., reduction="none")`, and the script's settings come from
`parser.parse_args([])`, the way notebooks and smoke tests call a training script: with an
empty list argparse ignores `sys.argv`, so every attribute is its `default=` literal, the
batch size and sequence length are known, and so is the loss's shape. The parser is named `p`
like the loop variable of `zero_grads()` (another scope: another name).

Look-alikes: the same loss reduced with `.mean()`; and the same per-token loss with settings
from `parse_args()`, whose defaults the command line may override (run below with one
tag of one token in a batch of one: a one-element loss backpropagates fine), so its shape is unknown.
"""

import argparse
import sys

import torch
from torch import nn
from torch.nn import functional as F


def notebook_settings():
    p = argparse.ArgumentParser(description="token tagger")
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--tokens", type=int, default=6)
    p.add_argument("--tags", type=int, default=5)
    return p.parse_args([])


def command_line_settings():
    p = argparse.ArgumentParser(description="token tagger")
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--tokens", type=int, default=6)
    p.add_argument("--tags", type=int, default=5)
    return p.parse_args()


def zero_grads(model):
    for p in model.parameters():
        p.grad = None


def tagging_loss(tagger, args):
    words = torch.randn(args.batch_size, args.tokens, 8)
    scores = torch.rand(args.batch_size, args.tokens, args.tags)
    return F.mse_loss(tagger(words), scores, reduction="none")


def train_per_token():
    args = notebook_settings()
    tagger = nn.Linear(8, args.tags)
    loss = tagging_loss(tagger, args)
    zero_grads(tagger)
    loss.backward()  # expect: GG501


def train_reduced():
    args = notebook_settings()
    tagger = nn.Linear(8, args.tags)
    loss = tagging_loss(tagger, args).mean()
    zero_grads(tagger)
    loss.backward()


def train_from_command_line():
    args = command_line_settings()
    tagger = nn.Linear(8, args.tags)
    words = torch.randn(args.batch_size, args.tokens, 8)
    scores = torch.rand(args.batch_size, args.tokens, args.tags)
    loss = F.mse_loss(tagger(words), scores, reduction="none")
    zero_grads(tagger)
    loss.backward()


if __name__ == "__main__":
    train_reduced()
    sys.argv = [sys.argv[0], "--batch-size", "1", "--tokens", "1", "--tags", "1"]
    train_from_command_line()
    try:
        train_per_token()
    except RuntimeError as error:
        assert "scalar outputs" in str(error)
    else:
        raise AssertionError("backward of a per-token loss ran")
    print("ok")
