"""A loss built only from the index half of topk/max/sort: GG108.

Modelled on questions where a "top-k accuracy" or ranking loss is computed from the
indices (https://discuss.pytorch.org/t/element-0-of-tensors-does-not-require-grad/ threads
quoting this shape): the indices are int64 and never require grad, so backward() raises
"element 0 of tensors does not require grad and does not have a grad_fn".
"""

import torch
from torch import nn

scorer = nn.Linear(8, 5)


def rank_loss(inputs, targets):
    scores = scorer(inputs)
    picked = scores.topk(2, dim=1).indices.float()  # expect: GG108
    loss = (picked - 1.0).pow(2).mean()
    loss.backward()


def argmax_by_max(inputs, targets):
    scores = scorer(inputs)
    _, predicted = torch.max(scores, dim=1)  # expect: GG108
    loss = (predicted.float() - 2.0).abs().mean()
    loss.backward()


def values_are_fine(inputs, targets):
    scores = scorer(inputs)
    best, _ = torch.max(scores, dim=1)
    loss = (best - targets).abs().mean()
    loss.backward()
