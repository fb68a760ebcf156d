"""Look-alikes of GG105 that keep the graph or never meant to have one.

`torch.as_tensor(t)` and `torch.asarray(t)` of a tensor return `t` itself (or `t.to(dtype)`,
which is differentiable), so its history survives; a tensor built from data and then made to
require grad is a leaf on purpose; data that are plain numbers are not backpropagated.
Checked under torch 2.13.0: every function below runs.
"""

import numpy as np
import torch
from torch import nn

torch.manual_seed(0)


def as_tensor_of_a_loss():
    model = nn.Linear(3, 1)
    loss = model(torch.randn(4, 3)).sum()
    same = torch.as_tensor(loss)
    same.backward()


def asarray_with_a_dtype(loss_fn, batch):
    value = torch.asarray(loss_fn(batch), dtype=torch.float64)
    value.backward()


def as_tensor_of_an_unknown(outputs):
    total = torch.as_tensor(outputs).sum()
    total.backward()


def leaf_made_to_require_grad(values):
    x = torch.tensor(values).requires_grad_()
    x.pow(2).sum().backward()
    return x.grad


def from_numpy_as_a_parameter(array):
    weights = torch.from_numpy(array).float().requires_grad_(True)
    optimizer = torch.optim.SGD([weights], lr=0.1)
    (weights * 2).sum().backward()
    optimizer.step()


def numbers_logged_not_backpropagated(losses):
    curve = torch.tensor(losses)
    return curve.mean().item()


as_tensor_of_a_loss()
asarray_with_a_dtype(lambda b: nn.Linear(2, 1)(b).sum(), torch.randn(3, 2))
as_tensor_of_an_unknown(nn.Linear(2, 1)(torch.randn(3, 2)))
leaf_made_to_require_grad([1.0, 2.0])
from_numpy_as_a_parameter(np.ones(3))
numbers_logged_not_backpropagated([0.5, 0.25])
