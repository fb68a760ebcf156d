"""The fixed running totals: numbers, detached copies, or a total that is backpropagated.

Sources (rewritten in our own words, structure kept):
* https://github.com/BatsResearch/labelmodels/issues/4 - fixed with `running_loss += loss.item()`.
* https://github.com/samuelyu2002/ImVisible/issues/2 - the maintainer's fix: `.item()` on all
  three running totals.
* https://github.com/MultimediaTechLab/YOLO/pull/83 - `defaultdict(float)` and
  `loss_val.item() * batch_size`.
* https://github.com/NVIDIA/DeepLearningExamples/issues/1102 - the fix adds
  `loss.clone().detach()` to the device-side statistic.
* Gradient accumulation over micro-batches (the total IS backpropagated): the pattern of
  https://github.com/google/brax/pull/152's surrounding training code and countless loops.
"""

from collections import defaultdict

import torch
from torch import nn


class LabelModel(nn.Module):
    def __init__(self, num_lfs: int = 5, num_classes: int = 2) -> None:
        super().__init__()
        self.accuracy = nn.Parameter(torch.zeros(num_lfs, num_classes))

    def _get_loss(self, votes):
        return -torch.logsumexp(votes @ self.accuracy, dim=1).mean()

    def estimate(self, batches, epochs, lr):
        optimizer = torch.optim.SGD(self.parameters(), lr=lr)
        for epoch in range(epochs):
            running_loss = 0.0
            for votes in batches:
                optimizer.zero_grad()
                loss = self._get_loss(votes)
                loss.backward()
                optimizer.step()
                running_loss += loss.item()
            print(f"epoch {epoch}: {running_loss / len(batches)}")


def train(model, loader, optimizer, mse, cross_entropy):
    running_loss = 0.0
    running_loss_mse = 0.0
    running_loss_cross_entropy = 0.0
    for images, points, labels in loader:
        optimizer.zero_grad()
        pred_points, pred_labels = model(images)
        mse_loss = mse(pred_points, points)
        ce_loss = cross_entropy(pred_labels, labels)
        loss = mse_loss + ce_loss
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        running_loss_mse += mse_loss.item()
        running_loss_cross_entropy += ce_loss.item()
    return running_loss, running_loss_mse, running_loss_cross_entropy


def train_one_epoch(model, loss_fn, optimizer, dataloader):
    total_loss = defaultdict(float)
    for images, targets in dataloader:
        batch_size = images.size(0)
        optimizer.zero_grad()
        loss, loss_items = loss_fn(model(images), targets)
        loss.backward()
        optimizer.step()
        for loss_name, loss_val in loss_items.items():
            total_loss[loss_name] += loss_val.item() * batch_size
    return total_loss


def fit_policy(observations, targets, steps):
    policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    criterion = nn.MSELoss()
    total_loss = torch.zeros(())
    for i in range(steps):
        optimizer.zero_grad()
        loss = criterion(policy(observations), targets)
        loss.backward()
        optimizer.step()
        total_loss += loss.detach()
    return total_loss


# Source: NVIDIA DLE#1102 fix: the device-side average gets a detached clone.
def pretrain_steps(model, batches, optimizer):
    average_loss = torch.zeros(())
    for inputs, labels in batches:
        loss = nn.functional.cross_entropy(model(inputs), labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        average_loss.add_(loss.clone().detach())
    return average_loss / len(batches)


# Gradient accumulation: the sum of micro-batch losses is what gets backpropagated.
def accumulate_then_step(batches, accumulation):
    net = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    for chunk_start in range(0, len(batches), accumulation):
        loss_sum = 0.0
        for x, y in batches[chunk_start : chunk_start + accumulation]:
            loss_sum += nn.functional.mse_loss(net(x), y)
        optimizer.zero_grad()
        (loss_sum / accumulation).backward()
        optimizer.step()
