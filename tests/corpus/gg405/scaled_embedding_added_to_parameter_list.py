"""A tensor made with `requires_grad=True` and then cast is added to the parameter list of an
optimizer after the model's own parameters (GG405).

A text classifier fine-tunes a pretrained embedding table that is not registered as a
parameter: it is built from a float64 array with `requires_grad=True` and cast with
`.float()`, which makes a new tensor computed from that leaf. Whatever the model's
parameters are, `list(model.parameters()) + [table]` holds the cast table, and the
optimizer rejects it: `ValueError: can't optimize a non-leaf Tensor` (checked with torch
2.13.0 below). Modelled on the cases collected in https://duoke360.com/post/34448 (an
optimizer handed tensors computed from leaves; compute first, then ask for gradients).
GG405 reports the statement computing the table, in the function building the optimizer.

The look-alikes build the same list from a leaf (cast first, then `requires_grad_()`), and
from the cast table taken out again (`pop()`) before the optimizer sees the list.
"""

import numpy as np
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.head = nn.Linear(dim, classes)

    def forward(self, vectors):
        return self.head(vectors.mean(1))


def pretrained(vocab, dim):
    return np.random.default_rng(0).normal(size=(vocab, dim))


def fine_tune_all(model, vocab, dim):
    table = torch.tensor(pretrained(vocab, dim), requires_grad=True).float()  # expect: GG405
    params = list(model.parameters()) + [table]
    return torch.optim.Adam(params, lr=1e-3)


def fine_tune_leaf(model, vocab, dim):
    table = torch.tensor(pretrained(vocab, dim)).float().requires_grad_()
    groups = list(model.parameters()) + [table]
    return torch.optim.Adam(groups, lr=1e-3), table


def head_only(model, vocab, dim):
    table = torch.tensor(pretrained(vocab, dim), requires_grad=True).float()
    trainable = list(model.parameters()) + [table]
    trainable.pop()
    return torch.optim.Adam(trainable, lr=1e-3)


if __name__ == "__main__":
    net = Classifier(4, 2)
    print(fine_tune_leaf(net, 10, 4)[0])
    print(head_only(net, 10, 4))
    try:
        fine_tune_all(net, 10, 4)
    except ValueError as error:
        print(f"BUGGY: {error}")
