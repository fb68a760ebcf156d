"""A Dice loss module computed on hard labels: `argmax`, then `F.one_hot`.

`one_hot` takes integer class indices and returns integers, so nothing computed from it
has history; with the smoothing constant kept on the module (`self.smooth`, a number every
construction leaves at its default) the whole loss is a constant, and `loss.backward()`
raises "element 0 of tensors does not require grad and does not have a grad_fn" (checked
with torch 2.13.0). The loss module is handed to the training function as `criterion`.
Found by a blind corpus a helper wrote for the team (a segmentation Dice loss).
"""

import torch
import torch.nn.functional as F
from torch import nn


class HardDiceLoss(nn.Module):
    def __init__(self, n_classes, smooth=1.0):
        super().__init__()
        self.n_classes, self.smooth = n_classes, smooth

    def forward(self, logits, target):
        pred = F.one_hot(logits.argmax(dim=1), self.n_classes).float()  # expect: GG108
        truth = F.one_hot(target, self.n_classes).float()
        inter = (pred * truth).sum(dim=0)
        union = pred.sum(dim=0) + truth.sum(dim=0)
        return 1.0 - ((2 * inter + self.smooth) / (union + self.smooth)).mean()


class SoftDiceLoss(nn.Module):
    """The usual fix: probabilities instead of hard labels. Differentiable: no finding."""

    def __init__(self, n_classes, smooth=1.0):
        super().__init__()
        self.n_classes, self.smooth = n_classes, smooth

    def forward(self, logits, target):
        pred = logits.softmax(dim=1)
        truth = F.one_hot(target, self.n_classes).float()
        inter = (pred * truth).sum(dim=0)
        union = pred.sum(dim=0) + truth.sum(dim=0)
        return 1.0 - ((2 * inter + self.smooth) / (union + self.smooth)).mean()


class LearnedSmoothingDiceLoss(nn.Module):
    """Hard labels, but a learned smoothing parameter gives the loss history: backward runs
    (the model still gets no gradient, which is not what GG108 reports)."""

    def __init__(self, n_classes):
        super().__init__()
        self.n_classes, self.smooth = n_classes, nn.Parameter(torch.ones(()))

    def forward(self, logits, target):
        pred = F.one_hot(logits.argmax(dim=1), self.n_classes).float()
        truth = F.one_hot(target, self.n_classes).float()
        inter = (pred * truth).sum(dim=0)
        union = pred.sum(dim=0) + truth.sum(dim=0)
        return 1.0 - ((2 * inter + self.smooth) / (union + self.smooth)).mean()


def train(model, batches, optimizer, criterion):
    for inputs, labels in batches:
        optimizer.zero_grad()
        loss = criterion(model(inputs), labels)
        loss.backward()
        optimizer.step()


def batches():
    return [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(2)]


def fit_hard():
    model = nn.Linear(6, 3)
    train(model, batches(), torch.optim.SGD(model.parameters(), lr=0.1), HardDiceLoss(3))


def fit(criterion_class):
    model = nn.Linear(6, 3)
    criterion = criterion_class(3)
    for inputs, labels in batches():
        criterion(model(inputs), labels).backward()


if __name__ == "__main__":
    try:
        fit_hard()
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("expected backward to fail")
    fit(SoftDiceLoss)
    fit(LearnedSmoothingDiceLoss)
