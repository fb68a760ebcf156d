"""Namespaces of settings whose values are not certain here (no GG402).

`cfg.init_scale` is set again after the namespace is built (to a float: the tensor below
is a float tensor), and `run` is handed to code outside the file (`logging` could be given
any object that changes it; the analysis does not follow it there). Both run cleanly with
torch 2.13.0. Compare `namespace_settings_made_trainable.py`.
"""

import logging
from types import SimpleNamespace

import torch

cfg = SimpleNamespace(init_scale=2, steps=3)
cfg.init_scale = 2.5
run = SimpleNamespace(init_scale=1.5, seed=0)
logging.getLogger(__name__).info("run settings: %s", run)

scale = torch.tensor(cfg.init_scale, requires_grad=True)
other = torch.tensor(run.init_scale, requires_grad=True)
for _ in range(cfg.steps):
    loss = (scale * other - 1.0) ** 2
    loss.backward()
