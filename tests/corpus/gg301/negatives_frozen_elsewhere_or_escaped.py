"""Look-alikes of in-place updates on a fresh module's parameters, in a file that freezes.

A module built in a function and kept there cannot be frozen by the file's other code, so
its parameters still require grad (see `analysis/private_modules.py`); these modules leave
their function, or the function itself freezes, so nothing is certain and all stay silent.
"""

import torch
from torch import nn


def freeze(module):
    for parameter in module.parameters():
        parameter.requires_grad = False


def handed_to_a_freezing_helper(steps):
    fc = nn.Linear(4, 1)
    freeze(fc)  # fc leaves the function: its parameters no longer require grad
    for _ in range(steps):
        for p in fc.parameters():
            p.add_(1.0)


def aliased_then_frozen_by_name(steps, registry):
    fc = nn.Linear(4, 1)
    registry["head"] = fc
    for _ in range(steps):
        for p in fc.parameters():
            p.mul_(0.5)


def frozen_right_here(steps):
    fc = nn.Linear(4, 1)
    fc.weight.requires_grad_(False)
    fc.bias.requires_grad_(False)
    for _ in range(steps):
        for p in fc.parameters():
            p.add_(1.0)


def weight_replaced(frozen_weight):
    fc = nn.Linear(4, 1)
    fc.weight = frozen_weight
    fc.weight[:, 0] = 1.0


def parameters_handed_over(steps):
    fc = nn.Linear(4, 1)
    parameters = list(fc.parameters())
    freeze_all(parameters)
    for p in fc.parameters():
        p.add_(1.0)


def freeze_all(parameters):
    for parameter in parameters:
        parameter.requires_grad_(False)
