"""Accumulation whose backward goes through a helper with a GradScaler branch (GG606).

open_clip's `train_one_epoch` backpropagates each micro-batch with a small helper,
`backward(total_loss, scaler)`, that scales the loss when mixed precision is on and calls
`total_loss.backward()` otherwise; the optimizer steps every `accum_freq` batches. A user
asked there whether the loss should not be divided by `accum_freq` first
(github.com/mlfoundations/open_clip/issues/957). Either branch of the helper backpropagates
the undivided loss, so each step applies the sum of `accum_freq` micro-batch gradients
(checked with torch 2.13.0 below against the gradient of the averaged loss). The step
itself sits in an `if scaler is not None: ... else:` inside the periodic guard.

Look-alikes (silent): a helper that divides the loss by its own argument before
backward, and a helper one of whose branches does not backpropagate (a skipped batch):
neither backpropagates the undivided loss on every call.
"""

import torch
import torch.nn.functional as F
from torch import nn


def backward(total_loss, scaler):
    if scaler is not None:
        scaler.scale(total_loss).backward()
    else:
        total_loss.backward()


def backward_averaged(total_loss, scaler, steps):
    if scaler is not None:
        scaler.scale(total_loss / steps).backward()
    else:
        (total_loss / steps).backward()


def backward_unless_skipped(total_loss, skip):
    if skip:
        print("batch skipped")
    else:
        total_loss.backward()


def train_one_epoch(model, batches, optimizer, scaler, accum_freq):
    grads = []
    optimizer.zero_grad()
    for i, (x, y) in enumerate(batches):
        total_loss = F.mse_loss(model(x), y)
        backward(total_loss, scaler)  # expect: GG606
        if (i + 1) % accum_freq == 0:
            grads.append(model.weight.grad.clone())
            if scaler is not None:
                scaler.step(optimizer)
                scaler.update()
            else:
                optimizer.step()
            optimizer.zero_grad()
    return grads


def train_averaged(model, batches, optimizer, scaler, accum_freq):
    grads = []
    optimizer.zero_grad()
    for i, (x, y) in enumerate(batches):
        total_loss = F.mse_loss(model(x), y)
        backward_averaged(total_loss, scaler, len(batches) // 2)
        if (i + 1) % accum_freq == 0:
            grads.append(model.weight.grad.clone())
            if scaler is not None:
                scaler.step(optimizer)
                scaler.update()
            else:
                optimizer.step()
            optimizer.zero_grad()
    return grads


def train_skipping(model, batches, optimizer, accum_freq):
    optimizer.zero_grad()
    for i, (x, y) in enumerate(batches):
        total_loss = F.mse_loss(model(x), y)
        backward_unless_skipped(total_loss, torch.isnan(total_loss).item())
        if (i + 1) % accum_freq == 0:
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    torch.manual_seed(0)
    x, y = torch.randn(16, 4), torch.randn(16, 1)
    batches = list(zip(x.chunk(4), y.chunk(4)))
    model = nn.Linear(4, 1)
    mean_loss = sum(F.mse_loss(model(xb), yb) for xb, yb in batches[:2]) / 2
    reference = torch.autograd.grad(mean_loss, model.weight)[0]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
    (summed,) = train_one_epoch(model, batches[:2], optimizer, None, 2)
    ratio = float(summed.norm() / reference.norm())
    assert abs(ratio - 2.0) < 1e-4, ratio  # each step applies twice the averaged gradient
    (averaged,) = train_averaged(model, batches[:4], optimizer, None, 4)
    train_skipping(model, batches, optimizer, 2)
    print(f"undivided accumulation: {ratio:.1f}x the averaged gradient")
