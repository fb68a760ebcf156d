"""Float tensors with requires_grad=True, and integer tensors left without it.

Sources (rewritten in our own words, structure kept):
* https://github.com/yunjey/pytorch-tutorial/pull/128 - the merged fix: float literals.
* https://github.com/pytorch/pytorch/issues/53466 - the docs fix: `torch.tensor([1.], ...)`.
* https://github.com/pytorch/pytorch/issues/95110 - keep the loss on the float logits.
"""

import torch
import torch.nn.functional as F


def basic_autograd():
    x = torch.tensor(1.0, requires_grad=True)
    w = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3, dtype=torch.float32, requires_grad=True)
    y = w * x + b
    y.backward()
    return x.grad, w.grad, b.grad


def doubler_example():
    x = torch.tensor([1.0], requires_grad=True)
    with torch.no_grad():
        y = x * 2
    return y.requires_grad


def loss_from_logits(logits, targets):
    _, predicted = torch.max(logits, 1)
    accuracy = (predicted == targets).float().mean()
    loss = F.cross_entropy(logits, targets)
    return loss, accuracy


def index_tensor_without_grad():
    idx = torch.arange(5)
    weights = torch.ones(5, requires_grad=True)
    return weights[idx].sum()
