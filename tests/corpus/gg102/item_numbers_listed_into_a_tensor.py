"""A loss turned into a number, then written into a list a tensor is built from (GG102).

`torch.Tensor([loss.item()])` and `torch.tensor([loss.item()])` make a new leaf out of a
Python number: it has no history, so `backward()` on it raises "element 0 of tensors does
not require grad and does not have a grad_fn". The list hides the `.item()` one level down;
the shape comes from code that collects several loss terms as numbers to weight them.

The look-alikes build such tensors for logging only, or list literal weights that multiply a
loss with history.
"""

import torch
import torch.nn.functional as F


def train_epoch(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        out = model(x)
        loss = torch.Tensor([F.mse_loss(out, y).item()])  # expect: GG102
        loss.backward()
        optimizer.step()


def train_weighted(model, loader, optimizer):
    weights = torch.tensor([0.5, 2.0])
    for x, y in loader:
        optimizer.zero_grad()
        out = model(x)
        terms = torch.tensor([F.l1_loss(out, y).item(), F.mse_loss(out, y).item()])  # expect: GG102
        (terms * weights).sum().backward()
        optimizer.step()


# --- look-alikes ---------------------------------------------------------------------------


def log_losses(model, loader, optimizer, history):
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        history.append(torch.Tensor([loss.item()]))


def weighted_terms(model, loader, optimizer):
    weights = torch.Tensor([0.5, 2.0])
    for x, y in loader:
        optimizer.zero_grad()
        out = model(x)
        loss = weights[0] * F.l1_loss(out, y) + weights[1] * F.mse_loss(out, y)
        loss.backward()
        optimizer.step()
