"""A hand-written SGD step in a helper that is given `model.parameters()`.

The word-level language model of the classic PyTorch example updates its weights by hand;
here the update lives in `sgd_step(params, lr)`, called with `model.parameters()` after
each backward. Outside `torch.no_grad()`, `p.add_(p.grad, alpha=-lr)` changes a leaf that
requires grad in place and raises "a leaf Variable that requires grad is being used in an
in-place operation" (checked with torch 2.13.0). A generator of a module's parameters,
handed on whole, yields leaves that require grad in the helper as in a loop written in
place.

Silent: the same helper under `torch.no_grad()`, and a helper given detached copies of the
parameters (changing a detached tensor in place is allowed). Modelled on the word language
model's manual update (pytorch/examples, word_language_model) and the blind corpus case
built on it, written anew for this corpus.
"""

import torch
from torch import nn


def sgd_step(params, lr):
    for p in params:
        if p.grad is not None:
            p.add_(p.grad, alpha=-lr)  # expect: GG301


def sgd_step_no_grad(params, lr):
    with torch.no_grad():
        for p in params:
            p.add_(p.grad, alpha=-lr)


def shift(tensors, amount):
    for t in tensors:
        t.add_(amount)


def train(model, batches, lr):
    for x, y in batches:
        model.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        sgd_step(model.parameters(), lr)


def train_safely(model, batches, lr):
    for x, y in batches:
        model.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        sgd_step_no_grad(model.parameters(), lr)
        shift([p.detach() for p in model.parameters()], 0.0)


def main():
    batches = [(torch.randn(4, 3), torch.randn(4, 1))]
    try:
        train(nn.Linear(3, 1), batches, 0.1)
    except RuntimeError as error:
        assert "leaf Variable that requires grad" in str(error)
    else:
        raise AssertionError("expected the in-place update to fail")
    train_safely(nn.Linear(3, 1), batches, 0.1)


if __name__ == "__main__":
    main()
