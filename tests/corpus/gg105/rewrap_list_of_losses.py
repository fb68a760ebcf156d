"""`torch.tensor(list_of_losses)` copies values into a new leaf and cuts every graph.

Modelled on the recurring question "I sum my per-sample losses with torch.tensor(losses)
and get element 0 of tensors does not require grad" (discuss.pytorch.org, Stack Overflow);
the fix is `torch.stack(losses)`.
"""

import torch
from torch import nn

net = nn.Linear(4, 1)


def per_sample_losses(samples):
    losses = [net(x).pow(2).sum() for x in samples]
    total = torch.tensor(losses).sum()  # expect: GG105
    total.backward()


def appended_in_a_loop(samples):
    losses = []
    for x in samples:
        losses.append(net(x).pow(2).sum())
    total = torch.tensor(losses).mean()  # expect: GG105
    total.backward()


def stacked_instead(samples):
    losses = [net(x).pow(2).sum() for x in samples]
    torch.stack(losses).sum().backward()


def numbers_logged_only(samples):
    losses = [net(x).pow(2).sum() for x in samples]
    record = torch.tensor([l.item() for l in losses])
    torch.stack(losses).mean().backward()
    return record
