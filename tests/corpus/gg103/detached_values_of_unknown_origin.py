"""`.detach()` on a value whose origin is not known here still cuts it (GG103).

Whatever has a `.detach()` method (a tensor, a TensorDict, a graph batch) returns a copy cut
from autograd, so backpropagating from it, or from anything computed from it alone, raises
"element 0 of tensors does not require grad and does not have a grad_fn". The loss below
comes from a parameter or from an unknown loss function, so only the detach is certain.
Shaped after the report where a detach added for logging moved the failure to backward
(https://discuss.pytorch.org/t/element-0-of-tensors-does-not-require-grad-and-does-not-have-a-grad-fn/32908).

The look-alikes keep the detached copy for logging and backpropagate the original, make the
copy a leaf again with `requires_grad_()`, or call a `detach` that takes an argument.
"""

import torch
from torch import nn


def train_epoch(model, optimizer, loss_fn, loader, history):
    for inputs, targets in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss = loss.detach()  # expect: GG103
        history.append(loss)
        loss.backward()
        optimizer.step()


def step_from_returned_loss(compute_loss, optimizer, batch):
    loss = compute_loss(batch).detach()  # expect: GG103
    scaled = loss * 0.5
    optimizer.zero_grad()
    scaled.backward()
    optimizer.step()


def logged_copy(model, optimizer, loss_fn, loader, history):
    for inputs, targets in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        history.append(loss.detach())
        loss.backward()
        optimizer.step()


def leaf_again(features, head):
    z = features.detach().requires_grad_()
    head(z).sum().backward()
    return z.grad


def detach_with_argument(stream, loss):
    raw = stream.detach(0)
    loss.backward()
    return raw


if __name__ == "__main__":
    net = nn.Linear(3, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    data = [(torch.randn(2, 3), torch.randn(2, 1))]
    logged_copy(net, opt, nn.functional.mse_loss, data, [])
    leaf_again(torch.randn(2, 3), net)
    try:
        train_epoch(net, opt, nn.functional.mse_loss, data, [])
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("train_epoch should raise")
    try:
        step_from_returned_loss(lambda b: net(b).sum(), opt, torch.randn(2, 3))
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("step_from_returned_loss should raise")
