"""Learnable scales started from settings kept in a `types.SimpleNamespace` (GG402).

Scripts and notebooks keep their settings in `SimpleNamespace(...)` as often as in a dict or
a dataclass. Its attributes are exactly the keywords it was built with, so where nothing in
the file may change the object (no attribute store of that name, no `setattr`, `vars` or
`__dict__`, never handed to code outside the file), `cfg.init_scale` is the literal it was
given. An int setting handed to `torch.tensor(..., requires_grad=True)` builds an int64
tensor, and asking it for gradients raises "Only Tensors of floating point and complex
dtype can require gradients" (checked with torch 2.13.0).

Look-alikes: a float setting; a setting of the namespace read through a function parameter
that is given a float; see also `negatives_namespace_settings_changed.py` (the namespace
changed or handed to other code).
"""

import types
from types import SimpleNamespace

import torch

cfg = SimpleNamespace(init_scale=2, init_bias=0.5, steps=3)
opts = types.SimpleNamespace(temperature=1)


def learnable(settings):
    return torch.tensor(settings.init_bias, requires_grad=True)


scale = torch.tensor(cfg.init_scale, requires_grad=True)  # expect: GG402
temperature = torch.tensor(opts.temperature, requires_grad=True)  # expect: GG402
bias = torch.tensor(cfg.init_bias, requires_grad=True)
offset = learnable(cfg)

for _ in range(cfg.steps):
    loss = (scale * bias - offset) ** 2 / temperature
    loss.backward()
