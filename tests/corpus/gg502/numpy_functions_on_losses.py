"""numpy functions handed tensors that require grad: they call Tensor.numpy() themselves.

Modelled on questions where an epoch's losses are collected in a list and summarised with
`np.mean(losses)` or plotted (e.g. "Can't call numpy() on Tensor that requires grad" threads
on discuss.pytorch.org and Stack Overflow, where the fix is `loss.item()` when collecting).
Under torch 2.13.0 and numpy 2 the list forms raise that error for mean/sum/std/max/...;
`np.mean(tensor)` on a single tensor fails differently (a TypeError about `axis`), so only
array-building functions are flagged for single tensors.
"""

import numpy as np
import torch
from torch import nn

model = nn.Linear(6, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


def epoch_mean_of_losses(batches):
    losses = []
    for x, y in batches:
        loss = (model(x) - y).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss)  # expect: GG203
    return np.mean(losses)  # expect: GG502


def predictions_as_array(x):
    out = model(x)
    return np.asarray(out)  # expect: GG502


def comprehension_of_outputs(xs):
    scores = [model(x).sum() for x in xs]
    return np.array(scores)  # expect: GG502


def losses_collected_as_numbers(batches):
    losses = []
    for x, y in batches:
        loss = (model(x) - y).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return np.mean(losses)


def detached_before_numpy(xs):
    scores = [model(x).sum().detach() for x in xs]
    return np.array(scores), np.asarray(model(xs[0]).detach())


def under_no_grad(xs):
    with torch.no_grad():
        scores = [model(x).sum() for x in xs]
    return np.stack(scores)


def unknown_list(scores_from_elsewhere):
    return np.mean(scores_from_elsewhere)
