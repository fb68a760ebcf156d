"""A trainer object whose `train_step` adds each loss tensor into `self.epoch_sum_loss`;
`train_epoch` calls it for every batch and logs the mean at the end. The attribute keeps
every step's graph alive for the whole epoch (CPU memory grows every epoch in the report;
the maintainers' fix: `self.epoch_sum_loss += loss.item()`).

Source (rewritten in our own words, structure kept):
https://github.com/open-mmlab/Amphion/issues/263 (`models/tts/valle_v2/base_trainer.py`)
and https://github.com/ULTR-Community/ULTRA_pytorch/issues/6 (`self.loss` kept on the
learner, memory used up after 10k steps).
"""

import torch
from torch import nn


class BaseTrainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.epoch_sum_loss = 0.0

    def train_step(self, batch):
        x, y = batch
        loss = nn.functional.mse_loss(self.model(x), y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.epoch_sum_loss += loss  # expect: GG203
        return loss.item()

    def train_epoch(self, loader):
        self.epoch_sum_loss = 0.0
        for batch in loader:
            self.train_step(batch)
        return self.epoch_sum_loss / len(loader)


class BaseTrainerFixed(BaseTrainer):
    def train_step(self, batch):
        x, y = batch
        loss = nn.functional.mse_loss(self.model(x), y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.epoch_sum_loss += loss.item()
        return loss.item()


if __name__ == "__main__":
    data = [(torch.randn(2, 3), torch.randn(2, 1)) for _ in range(3)]
    assert BaseTrainer(nn.Linear(3, 1)).train_epoch(data).requires_grad
    assert isinstance(BaseTrainerFixed(nn.Linear(3, 1)).train_epoch(data), float)
