"""Losses that change the output of `sigmoid` in place before the backward pass: autograd
kept that output to compute sigmoid's gradient, so `backward()` raises "one of the
variables needed for gradient computation has been modified by an inplace operation:
[torch.FloatTensor ...], which is output 0 of SigmoidBackward0, is at version 1; expected
version 0 instead" (checked with torch 2.13.0).

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorch/pytorch/issues/9391 - `b = a.sigmoid(); b[1] = 2;
  b.sum().backward()` fails, while the same values computed as `1/(exp(-a)+1)` work.
* https://github.com/wutong16/DistributionBalancedLoss/issues/20 - a multi-label
  re-balanced loss module raising the same error on `output 0 of SigmoidBackward0` at
  `loss.backward()`; we model it as a loss module that clamps the probabilities of ignored
  labels in place (the thread does not show the line).

Still missed: the `ResampleLoss` case. `train_step` receives the loss module as a parameter,
and its callers pass two different classes (`ResampleLoss` and its fixed twin), so the
analysis does not know which `forward` computed the loss there. With one caller passing
`ResampleLoss()` it is found (see `loss_module_edits_its_probabilities.py`).
"""

import torch
from torch import nn


class ResampleLoss(nn.Module):
    def __init__(self, neg_scale: float = 2.0) -> None:
        super().__init__()
        self.neg_scale = neg_scale

    def forward(self, cls_score, label, ignore):
        probs = torch.sigmoid(cls_score)
        probs[ignore] = 0.5  # missed: GG302
        return nn.functional.binary_cross_entropy(probs, label)


class ResampleLossFixed(nn.Module):
    def __init__(self, neg_scale: float = 2.0) -> None:
        super().__init__()
        self.neg_scale = neg_scale

    def forward(self, cls_score, label, ignore):
        probs = torch.sigmoid(cls_score)
        probs = torch.where(ignore, torch.full_like(probs, 0.5), probs)
        return nn.functional.binary_cross_entropy(probs, label)


def train_step(model, criterion, optimizer, x, label, ignore):
    optimizer.zero_grad()
    loss = criterion(model(x), label, ignore)
    loss.backward()
    optimizer.step()


def pytorch_9391():
    a = torch.tensor([1, 2, 3.0], requires_grad=True)
    b = a.sigmoid()
    b[1] = 2  # expect: GG302
    b.sum().backward()


def pytorch_9391_by_hand():
    a = torch.tensor([1, 2, 3.0], requires_grad=True)
    b = 1 / ((-a).exp() + 1)
    b[1] = 2
    b.sum().backward()
    return a.grad


def pytorch_9391_cloned():
    a = torch.tensor([1, 2, 3.0], requires_grad=True)
    b = a.sigmoid().clone()
    b[1] = 2
    b.sum().backward()
    return a.grad


net = nn.Linear(4, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x, label = torch.randn(2, 4), torch.randint(0, 2, (2, 3)).float()
ignore = torch.tensor([[True, False, False], [False, False, True]])
try:
    train_step(net, ResampleLoss(), opt, x, label, ignore)
except RuntimeError as error:
    assert "modified by an inplace operation" in str(error)
train_step(net, ResampleLossFixed(), opt, x, label, ignore)
try:
    pytorch_9391()
except RuntimeError as error:
    assert "modified by an inplace operation" in str(error)
pytorch_9391_by_hand()
pytorch_9391_cloned()
