"""Running loss totals that add the loss tensor itself in a training loop (GG203).

Sources (rewritten in our own words, structure kept):
* https://github.com/BatsResearch/labelmodels/issues/4 - `running_loss += loss` inside the
  epoch/batch loops of a label model's `_do_estimate`-style training method; GPU memory ran
  out on large training sets, fixed with `loss.item()`.
* https://github.com/samuelyu2002/ImVisible/issues/2 - three running totals (`running_loss`,
  `running_loss_MSE`, `running_loss_cross_entropy`) for a two-part loss.
* https://github.com/MultimediaTechLab/YOLO/pull/83 - `total_loss` a defaultdict of tensors,
  `total_loss[loss_name] += loss_val * batch_size` per named loss returned by the loss helper.
* https://github.com/google/brax/pull/152 and the PyTorch FAQ it quotes: `total_loss += loss`.
* https://github.com/mrdbourke/pytorch-deep-learning/issues/583 - `train_step` returns
  `train_loss / len(dataloader)` with the tensor summed in, then the loss curve plot fails.
"""

from collections import defaultdict

import torch
from torch import nn


class LabelModel(nn.Module):
    """labelmodels#4: the model trains itself; the loss comes from a method of its own."""

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
                running_loss += loss  # expect: GG203
            print(f"epoch {epoch}: {running_loss / len(batches)}")


# Source: ImVisible#2, train loop of a two-headed model; the model, loader and both criteria
# are parameters.
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
        running_loss += loss  # expect: GG203
        running_loss_mse += mse_loss  # missed: GG203
        running_loss_cross_entropy += ce_loss  # missed: GG203
    return running_loss, running_loss_mse, running_loss_cross_entropy


# Source: YOLO PR #83, train_one_epoch: the loss helper returns the total and a dict of named
# parts; the dict of running sums starts as tensors.
def train_one_epoch(model, loss_fn, optimizer, dataloader):
    total_loss = defaultdict(lambda: torch.tensor(0.0))
    for images, targets in dataloader:
        batch_size = images.size(0)
        optimizer.zero_grad()
        loss, loss_items = loss_fn(model(images), targets)
        loss.backward()
        optimizer.step()
        for loss_name, loss_val in loss_items.items():
            total_loss[loss_name] += loss_val * batch_size  # missed: GG203
    return total_loss


# Source: brax PR #152 / the PyTorch FAQ: a model built here, the plain running total.
def fit_policy(observations, targets, steps):
    policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    criterion = nn.MSELoss()
    total_loss = 0
    for i in range(steps):
        optimizer.zero_grad()
        output = policy(observations)
        loss = criterion(output, targets)
        loss.backward()
        optimizer.step()
        total_loss += loss  # expect: GG203
    return total_loss


# Source: mrdbourke#583, train_step(): the per-batch loss is summed into train_loss.
def train_step(model, dataloader, loss_fn, optimizer):
    model.train()
    train_loss, train_acc = 0, 0
    for X, y in dataloader:
        y_pred = model(X)
        loss = loss_fn(y_pred, y)
        train_loss += loss  # expect: GG203
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        y_pred_class = torch.argmax(torch.softmax(y_pred, dim=1), dim=1)
        train_acc += (y_pred_class == y).sum().item() / len(y_pred)
    return train_loss / len(dataloader), train_acc / len(dataloader)
