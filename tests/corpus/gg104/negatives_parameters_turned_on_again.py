"""Parameters frozen one by one, then turned on again before training (no GG104).

A warm-up schedule freezes a projection's weight and bias for a few steps, then turns the
weight back on: from then on the layer trains, and backward runs (checked with torch
2.13.0). Another gives its layer a new bias between the freezes: the new parameter trains. Freezing by attribute is a freeze of the layer only while nothing turns a
parameter of it back on.
"""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
features = torch.randn(16, 6)
labels = torch.randint(0, 3, (16,))

proj = nn.Linear(6, 3)
proj.weight.requires_grad = False
proj.bias.requires_grad = False
proj.weight.requires_grad = True
F.cross_entropy(proj(features), labels).backward()

head = nn.Linear(6, 3)
head.weight.requires_grad = False
head.bias.requires_grad = False
for p in head.parameters():
    p.requires_grad_(True)
F.cross_entropy(head(features), labels).backward()

rebiased = nn.Linear(6, 3)
rebiased.weight.requires_grad = False
rebiased.bias = nn.Parameter(torch.zeros(3))
F.cross_entropy(rebiased(features), labels).backward()
