"""Loops over a dict of metrics that convert each value: the pass binding a loss that
requires grad converts it, whatever the other values are.

Modelled on metric loggers that take a step's `{"loss": loss, "lr": lr}` dict and turn every
tensor in it into a NumPy scalar (`value.cpu().numpy()` after `torch.is_tensor(value)`),
as in the "Can't call numpy() on Tensor that requires grad" reports where the training step
handed the live loss tensors to its logger. The look-alikes detach the tensors first, skip
the ones that require grad, or convert only values that are not tensors.
"""

import numpy as np
import torch
from torch import nn

net = nn.Linear(5, 2)


def log_step_metrics(x, lr):
    out = net(x)
    metrics = {"loss": out.pow(2).mean(), "lr": lr}
    rows = {}
    for name, value in metrics.items():
        if torch.is_tensor(value):
            value = value.cpu().numpy()  # expect: GG502
        rows[name] = value
    return rows


def log_written_out_pair(x, step):
    loss = net(x).abs().mean()
    for value in (loss, step):
        if isinstance(value, torch.Tensor):
            print(np.asarray(value))  # expect: GG502


def values_of_a_dict(x, epoch):
    loss = net(x).sum()
    for value in {"epoch": epoch, "loss": loss}.values():
        if torch.is_tensor(value):
            print(value.numpy())  # expect: GG502


def detached_before_logging(x, lr):
    out = net(x)
    metrics = {"loss": out.pow(2).mean().detach(), "lr": lr}
    for name, value in metrics.items():
        if torch.is_tensor(value):
            value = value.cpu().numpy()
        print(name, value)


def detached_in_the_loop(x, lr):
    metrics = {"loss": net(x).pow(2).mean(), "lr": lr}
    for name, value in metrics.items():
        if torch.is_tensor(value):
            value = value.detach().cpu().numpy()
        print(name, value)


def item_in_the_loop(x, lr):
    metrics = {"loss": net(x).pow(2).mean(), "lr": lr}
    for name, value in metrics.items():
        if torch.is_tensor(value):
            value = value.item()
        print(name, np.float32(value))


def skips_what_requires_grad(x, lr):
    metrics = {"loss": net(x).pow(2).mean(), "lr": lr}
    for name, value in metrics.items():
        if torch.is_tensor(value) and value.requires_grad:
            continue
        print(name, np.asarray(value))


def converts_only_numbers(x, lr):
    metrics = {"loss": net(x).pow(2).mean(), "steps": 3}
    for name, value in metrics.items():
        if not isinstance(value, torch.Tensor):
            print(name, np.asarray(value))


def converts_by_name_only(x, lr):
    metrics = {"loss": net(x).pow(2).mean(), "acc": torch.zeros(())}
    for name, value in metrics.items():
        if name.startswith("acc"):
            print(name, value.numpy())


def already_numbers(x):
    loss = net(x).pow(2).mean()
    for value in {"loss": loss.item(), "scale": 2.0}.values():
        print(np.asarray(value))
