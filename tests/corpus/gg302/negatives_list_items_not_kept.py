"""Look-alikes of changing a kept list item in place that run fine (GG302 stays silent).

* the slice is empty (`outs[2:]` of a two-element list), so the in-place loop never runs;
* the item changed in place is a linear layer's output, which no op kept;
* the item is replaced out of place (`outs[0] = outs[0] + 1`);
* the list holds plain numbers (`counts[0] += 1`);
* the index is not known (`outs[k] += 1` with `k` a parameter): which item changes is a
  runtime value, so nothing is said;
* the change comes after the backward pass.

Each function runs under torch 2.13.0 without error (this file runs them all). Written for
this corpus.
"""

import torch
from torch import nn


def empty_slice(w):
    outs = [torch.sigmoid(w), torch.sigmoid(2 * w)]
    total = outs[0]
    for o in outs[2:]:
        total += o
    total.sum().backward()


def linear_item(w, x):
    layer = nn.Linear(5, 5)
    outs = [layer(x * w), torch.sigmoid(w)]
    outs[0] += 1
    (outs[0].sum() + outs[1].sum()).backward()


def replaced_item(w):
    outs = [torch.sigmoid(w), torch.tanh(w)]
    outs[0] = outs[0] + 1
    (outs[0].sum() + outs[1].sum()).backward()


def counted(w):
    counts = [0, 0]
    outs = [torch.sigmoid(w), torch.tanh(w)]
    counts[0] += 1
    outs[1].sum().backward()
    return counts


def unknown_index(w, k):
    outs = [torch.sigmoid(w), w * 2]
    outs[k] += 1
    outs[1].sum().backward()


def after_backward(w):
    outs = [torch.sigmoid(w), torch.tanh(w)]
    outs[0].sum().backward()
    outs[0] += 1


if __name__ == "__main__":
    torch.manual_seed(0)
    weights = torch.randn(5, requires_grad=True)
    empty_slice(weights)
    linear_item(weights, torch.randn(5))
    replaced_item(weights)
    counted(weights)
    unknown_index(weights, 1)
    after_backward(weights)
