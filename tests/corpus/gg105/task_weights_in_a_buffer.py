"""A multi-task loss that stacks task losses with `torch.tensor(...)` and weights them with
a registered buffer.

`MultiTaskLoss.forward` puts the per-task losses into `torch.tensor(task_losses)`, which
copies their values into a new tensor without history, then multiplies by `self.weights`, a
buffer registered in `__init__` from `torch.tensor([...])` (no history either). The total has
no `grad_fn` and `loss.backward()` raises "element 0 of tensors does not require grad and
does not have a grad_fn" (checked with torch 2.13.0). A buffer registered once from a
tensor without history is that tensor (`self.weights`).

Silent: the same module stacking the losses with `torch.stack`. Modelled on the forum report
"Gradient is lost when use torch.tensor([t1, t2])"
(https://discuss.pytorch.org/t/gradient-is-lost-when-use-torch-tensor-t1-t2/23261), written
anew for this corpus.
"""

import torch
from torch import nn


class MultiTaskLoss(nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.register_buffer("weights", torch.tensor(weights))

    def forward(self, outputs, targets):
        task_losses = []
        for i in range(2):
            task_losses.append(nn.functional.mse_loss(outputs[:, i], targets[:, i]))
        stacked = torch.tensor(task_losses)  # expect: GG105
        return (stacked * self.weights).sum()


class StackedLoss(nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.register_buffer("weights", torch.tensor(weights))

    def forward(self, outputs, targets):
        task_losses = []
        for i in range(2):
            task_losses.append(nn.functional.mse_loss(outputs[:, i], targets[:, i]))
        return (torch.stack(task_losses) * self.weights).sum()


def train(model, criterion, x, y):
    loss = criterion(model(x), y)
    loss.backward()


def train_stacked(model, criterion, x, y):
    loss = criterion(model(x), y)
    loss.backward()


def main():
    try:
        train(nn.Linear(3, 2), MultiTaskLoss([1.0, 0.5]), torch.randn(4, 3), torch.randn(4, 2))
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("expected backward to fail")
    train_stacked(nn.Linear(3, 2), StackedLoss([1.0, 0.5]), torch.randn(4, 3), torch.randn(4, 2))


if __name__ == "__main__":
    main()
