"""backward() with a keyword GradGuard does not know: the call is unknown, so no GG202.

Old tutorials (torch < 0.4) wrote `loss.backward(retain_variables=True)`; the team found a
GG202 false positive on exactly this in real training code: the unknown keyword was read as
a plain call that frees the graph. Whatever such a call does, GradGuard cannot be certain.
"""

import torch
from torch import nn

net = nn.Linear(3, 1)


def legacy_retain_variables(x):
    y = torch.sigmoid(net(x)).sum()
    y.backward(retain_variables=True)
    y.backward()


def keyword_splat(x, options):
    y = torch.sigmoid(net(x)).sum()
    y.backward(**options)
    y.backward()


def plain_call_still_flagged(x):
    y = torch.sigmoid(net(x)).sum()
    y.backward()  # expect: GG202
    y.backward()
