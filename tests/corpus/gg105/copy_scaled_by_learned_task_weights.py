"""Task losses copied by `torch.tensor(...)` and scaled by learned task weights (GG105).

A loss module of the Kendall-style "uncertainty weighting" kind keeps one learned
log-variance per task and returns `sum(exp(-s) * L + s)`. Here the task losses reach it
as a list that `torch.tensor(per_task)` turns into a new tensor: the values survive, their
history does not. The weighted sum still has history (through the log-variances), so
`loss.backward()` runs without an error and the log-variances train, but the model that
computed the task losses never gets a gradient (checked with torch 2.13.0 below). Shaped
after the multi-task reports collected in tests/corpus/real/gg105 (a list of losses
rewrapped with `torch.tensor`), where the weighted sum hid the cut.

The look-alikes: the same module with `torch.stack` (the graph is kept); a regression target
copied with `torch.tensor(...)` and given to `F.mse_loss` as its target (a target is meant
to be constant, as in a TD target); a copy made on purpose as a new leaf whose `.grad` the
code reads.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 8)
        self.depth = nn.Linear(8, 1)
        self.normals = nn.Linear(8, 3)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return self.depth(h).squeeze(1), self.normals(h)


class UncertaintyWeighting(nn.Module):
    def __init__(self, tasks):
        super().__init__()
        self.log_vars = nn.Parameter(torch.zeros(tasks))

    def forward(self, per_task):
        losses = torch.tensor(per_task)  # expect: GG105
        return (torch.exp(-self.log_vars) * losses + self.log_vars).sum()


class StackedWeighting(UncertaintyWeighting):
    def forward(self, per_task):
        losses = torch.stack(per_task)
        return (torch.exp(-self.log_vars) * losses + self.log_vars).sum()


def task_losses(model, x, depth, normals):
    predicted_depth, predicted_normals = model(x)
    return [F.l1_loss(predicted_depth, depth), F.mse_loss(predicted_normals, normals)]


def train():
    torch.manual_seed(0)
    model, weighting = Net(), UncertaintyWeighting(2)
    optimizer = torch.optim.SGD([*model.parameters(), *weighting.parameters()], lr=0.1)
    x, depth, normals = torch.randn(16, 6), torch.randn(16), torch.randn(16, 3)
    loss = weighting(task_losses(model, x, depth, normals))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return model.body.weight.grad


def train_stacked():
    torch.manual_seed(0)
    model, weighting = Net(), StackedWeighting(2)
    x, depth, normals = torch.randn(16, 6), torch.randn(16), torch.randn(16, 3)
    loss = weighting(task_losses(model, x, depth, normals))
    loss.backward()
    return model.body.weight.grad


def regression_on_a_copied_target():
    torch.manual_seed(0)
    online, frozen = nn.Linear(4, 1), nn.Linear(4, 1)
    states, rewards = torch.randn(8, 4), torch.randn(8, 1)
    target = torch.tensor(rewards + 0.9 * frozen(states))
    loss = F.mse_loss(online(states), target)
    loss.backward()
    return online.weight.grad, frozen.weight.grad


def gradient_of_a_copy():
    model = nn.Linear(3, 3)
    copy = torch.tensor(model(torch.randn(2, 3)), requires_grad=True)
    (copy**2).sum().backward()
    return copy.grad


if __name__ == "__main__":
    assert train() is None, "the copy should cut the model off"
    assert train_stacked() is not None
    online_grad, frozen_grad = regression_on_a_copied_target()
    assert online_grad is not None and frozen_grad is None
    assert gradient_of_a_copy() is not None
    print("BUGGY: with torch.tensor(per_task) the model gets no gradient")
