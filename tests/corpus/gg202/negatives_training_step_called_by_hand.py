"""No GG202: a LightningModule's `training_step` called by hand, outside the Trainer.

Under the Trainer, what `training_step` returns is backpropagated by the Trainer itself, so
the analysis records that backward at the `return`. Code that calls the method directly (a
parity test against a plain loop, as in Lightning's own test suite,
tests/parity_pytorch/test_sync_batchnorm_parity.py) gets the loss with its graph whole and
backpropagates it once: nothing was freed before that backward runs.
"""

import torch
from lightning.pytorch import LightningModule
from torch import nn


class TinyModule(LightningModule):
    def __init__(self):
        super().__init__()
        self.norm = nn.BatchNorm1d(1)
        self.linear = nn.Linear(1, 4)

    def training_step(self, batch, batch_idx):
        out = self.linear(self.norm(batch))
        return out.pow(2).sum()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.02)


def plain_loop(batches):
    model = TinyModule()
    optimizer = model.configure_optimizers()
    for index, batch in enumerate(batches):
        optimizer.zero_grad()
        loss = model.training_step(batch, index)
        loss.backward()
        optimizer.step()
