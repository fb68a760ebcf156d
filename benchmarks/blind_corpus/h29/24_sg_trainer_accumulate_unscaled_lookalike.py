"""Trainer with gradient accumulation whose loss helper already divides by the step count.

Look-alike: ``_backward_step`` calls ``loss.backward()`` on what looks like the raw loss,
but ``_get_losses`` returns the criterion value divided by ``batch_accumulate`` (the
logged value stays unscaled), so the accumulated gradient equals the effective-batch one.

Modelled on: https://github.com/Deci-AI/super-gradients/issues/1713

super-gradients' ``Trainer`` accumulates gradients over ``batch_accumulate`` mini-batches
and steps the optimizer every ``batch_accumulate`` iterations, but it calls
``loss.backward()`` on each mini-batch's mean loss without dividing by the number of
accumulation steps. The accumulated gradient is therefore ``batch_accumulate`` times the
gradient of the effective (large) batch, which silently multiplies the learning rate.
The check compares the accumulated gradient to the gradient of the full batch.
"""
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class TrainingParams:
    batch_accumulate: int = 4
    initial_lr: float = 0.05
    max_epochs: int = 1
    clip_grad_norm: float = 0.0


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


class Trainer:
    def __init__(self, net, training_params):
        self.net = net
        self.training_params = training_params
        self.batch_accumulate = training_params.batch_accumulate
        self.criterion = nn.MSELoss()
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=training_params.initial_lr)
        self.grad_snapshots = []

    def _get_losses(self, outputs, targets):
        loss = self.criterion(outputs, targets)
        return loss / self.batch_accumulate, loss.detach()

    def _backward_step(self, loss, batch_idx):
        loss.backward()
        if (batch_idx + 1) % self.batch_accumulate == 0:
            self.grad_snapshots.append([p.grad.clone() for p in self.net.parameters()])
            if self.training_params.clip_grad_norm:
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.training_params.clip_grad_norm)
            self.optimizer.step()
            self.optimizer.zero_grad()

    def _train_epoch(self, loader):
        self.net.train()
        running = 0.0
        for batch_idx, (inputs, targets) in enumerate(loader):
            outputs = self.net(inputs)
            loss, loss_log = self._get_losses(outputs, targets)
            self._backward_step(loss, batch_idx)
            running += loss_log.item()
        return running / len(loader)

    def train(self, loader):
        self.optimizer.zero_grad()
        for _ in range(self.training_params.max_epochs):
            self._train_epoch(loader)


def make_loader(n_batches=4, bs=8):
    g = torch.Generator().manual_seed(0)
    out = []
    for _ in range(n_batches):
        x = torch.randn(bs, 6, generator=g)
        out.append((x, x.sum(1) * 0.5))
    return out


def full_batch_grad(net, loader, criterion):
    x = torch.cat([b[0] for b in loader])
    y = torch.cat([b[1] for b in loader])
    net.zero_grad()
    criterion(net(x), y).backward()
    grads = [p.grad.clone() for p in net.parameters()]
    net.zero_grad()
    return grads


if __name__ == "__main__":
    torch.manual_seed(0)
    params = TrainingParams()
    trainer = Trainer(Regressor(), params)
    loader = make_loader(n_batches=params.batch_accumulate)
    reference = full_batch_grad(trainer.net, loader, trainer.criterion)
    trainer.train(loader)
    acc = trainer.grad_snapshots[0]
    ratio = (acc[0].norm() / reference[0].norm()).item()
    assert abs(ratio - 1.0) < 1e-3, ratio
    print("OK")
