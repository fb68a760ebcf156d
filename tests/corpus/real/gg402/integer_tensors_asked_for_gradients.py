"""Integer tensors created with requires_grad=True (GG402).

Sources (rewritten in our own words, structure kept):
* https://github.com/yunjey/pytorch-tutorial/pull/128 - the basics tutorial builds
  `x = torch.tensor(1., requires_grad=True)`-style scalars; written without the dot they are
  int64 and creation fails.
* https://github.com/pytorch/pytorch/issues/53466 (and #54506,
  https://github.com/pytorch-tabular/pytorch_tabular/issues/67) - the `torch.no_grad` /
  `torch.enable_grad` docstring example `x = torch.tensor([1], requires_grad=True)`.
* https://github.com/pytorch/pytorch/issues/95110 - the index half of `torch.max` is a
  LongTensor, and the reporter sets `requires_grad = True` on it.
"""

import torch


# Source: pytorch-tutorial PR #128, basic autograd example 1.
def basic_autograd():
    x = torch.tensor(1, requires_grad=True)  # expect: GG402
    w = torch.tensor(2, requires_grad=True)  # expect: GG402
    b = torch.tensor(3, requires_grad=True)  # expect: GG402
    y = w * x + b
    y.backward()
    return x.grad, w.grad, b.grad


# Source: pytorch#53466, the grad-mode docstring example.
def doubler_example():
    x = torch.tensor([1], requires_grad=True)  # expect: GG402
    with torch.no_grad():
        y = x * 2
    return y.requires_grad


# Source: pytorch#95110: predicted classes made to "require grad" to build a loss from them.
def loss_from_predictions(logits, targets):
    _, predicted = torch.max(logits, 1)
    predicted.requires_grad = True  # expect: GG402
    return (predicted.float() - targets).abs().mean()
