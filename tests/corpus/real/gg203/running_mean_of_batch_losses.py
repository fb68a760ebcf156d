"""A classifier fine-tuning loop that keeps a running mean of the batch losses for the
learning-rate scheduler and the progress bar: `loss_mean += loss_tensor` (the tensor) in
the batch loop of `epoch_train`, a method of the trainer class. The running mean keeps
every batch's graph alive, and training ran out of memory at the end of the first epoch;
the suggested change in the thread: add `losstensor.item()` instead.

Source (rewritten in our own words, structure kept): https://github.com/zoogzog/chexnet/issues/12
"""

import torch
from torch import nn


class ChexTrainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.loss_fn = nn.BCEWithLogitsLoss()

    def epoch_train(self, loader):
        self.model.train()
        loss_mean = 0
        count = 0
        for images, labels in loader:
            output = self.model(images)
            loss_tensor = self.loss_fn(output, labels)
            self.optimizer.zero_grad()
            loss_tensor.backward()
            self.optimizer.step()
            loss_mean += loss_tensor  # expect: GG203
            count += 1
        return loss_mean / count

    def epoch_train_fixed(self, loader):
        self.model.train()
        loss_mean = 0.0
        count = 0
        for images, labels in loader:
            output = self.model(images)
            loss_tensor = self.loss_fn(output, labels)
            self.optimizer.zero_grad()
            loss_tensor.backward()
            self.optimizer.step()
            loss_mean += loss_tensor.item()
            count += 1
        return loss_mean / count


if __name__ == "__main__":
    trainer = ChexTrainer(nn.Linear(5, 2))
    data = [(torch.randn(3, 5), torch.rand(3, 2)) for _ in range(2)]
    assert trainer.epoch_train(data).requires_grad
    assert isinstance(trainer.epoch_train_fixed(data), float)
