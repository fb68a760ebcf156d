"""A focal-loss module that applies `torch.sigmoid` to its inputs and then hands the
probabilities to `F.binary_cross_entropy_with_logits`, which applies a sigmoid again: the
second sigmoid maps [0, 1] into [0.5, 0.73], the loss never sees a confident negative. The
pull request computes the BCE on the raw logits and keeps the probabilities for the focal
weight only.

Source (rewritten in our own words, structure kept): https://github.com/itakurah/focal-loss-pytorch/pull/5
- a `FocalLoss(nn.Module)` with gamma/alpha, a `forward(inputs, targets)` computing the
probabilities, the BCE term and the modulating factor.
"""

import torch
import torch.nn.functional as F
from torch import nn


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, alpha: float = 0.25) -> None:
        super().__init__()
        self.gamma = gamma
        self.alpha = alpha

    def forward(self, inputs, targets):
        probs = torch.sigmoid(inputs)
        bce_loss = F.binary_cross_entropy_with_logits(probs, targets, reduction="none")  # expect: GG111
        p_t = probs * targets + (1 - probs) * (1 - targets)
        loss = bce_loss * ((1 - p_t) ** self.gamma)
        alpha_t = self.alpha * targets + (1 - self.alpha) * (1 - targets)
        return (alpha_t * loss).mean()


class FixedFocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, alpha: float = 0.25) -> None:
        super().__init__()
        self.gamma = gamma
        self.alpha = alpha

    def forward(self, inputs, targets):
        probs = torch.sigmoid(inputs)
        bce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
        p_t = probs * targets + (1 - probs) * (1 - targets)
        loss = bce_loss * ((1 - p_t) ** self.gamma)
        alpha_t = self.alpha * targets + (1 - self.alpha) * (1 - targets)
        return (alpha_t * loss).mean()


def probability_bce(inputs, targets):
    """BCE on probabilities is right when the loss is the plain one."""
    probs = torch.sigmoid(inputs)
    return F.binary_cross_entropy(probs, targets)


logits = torch.randn(8, requires_grad=True)
labels = torch.randint(0, 2, (8,)).float()
FocalLoss()(logits, labels).backward()
FixedFocalLoss()(logits, labels).backward()
probability_bce(logits, labels).backward()
