"""Helpers that clear, backpropagate and report one batch (used by cleared_elsewhere.py)."""
import torch.nn.functional as F


def backward_pass(model, optimizer, inputs, targets):
    """Clears the gradients, backpropagates and returns the loss as a number."""
    optimizer.zero_grad()
    loss = F.mse_loss(model(inputs), targets)
    loss.backward()
    return loss.item()


def maybe_backward(model, inputs, targets, train):
    """Backpropagates only when asked to; returns the loss tensor either way."""
    loss = F.mse_loss(model(inputs), targets)
    if train:
        loss.backward()
    return loss
