"""A loss module's `forward` calls `nll_loss` on what the training loop passes: softmax output.

The segmentation network ends in `F.softmax`, and `SegLoss.forward(pred, target)` hands
`pred` to `F.nll_loss`, which expects log-probabilities: the loss is -p[y], not -log p[y],
and goes negative (checked with torch 2.13.0 below). What the module is given is known only
at its call, so the module is run again with the loop's arguments; the finding is inside
`forward`, its message names the softmax. Look-alikes: the same loss module given
`log_softmax` output (that call alone would be silent), and a loss module whose own code
takes the log first.

Modelled on a PointNet segmentation loss of the team's second blind corpus.
"""

import torch
from torch import nn
import torch.nn.functional as F


class SegNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(3, 4)

    def forward(self, points):
        return F.softmax(self.head(points), dim=-1)


class LogSegNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(3, 4)

    def forward(self, points):
        return F.log_softmax(self.head(points), dim=-1)


class SegLoss(nn.Module):
    def forward(self, pred, target):
        return F.nll_loss(pred, target)  # expect: GG113


class SafeSegLoss(nn.Module):
    def forward(self, pred, target):
        return F.nll_loss(torch.log(pred), target)


def train(steps=2):
    model, criterion = SegNet(), SegLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(steps):
        points, target = torch.randn(8, 3), torch.randint(0, 4, (8,))
        loss = criterion(model(points), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def train_log(steps=2):
    model, criterion = LogSegNet(), SegLoss()
    safe_model, safe = SegNet(), SafeSegLoss()
    for _ in range(steps):
        points, target = torch.randn(8, 3), torch.randint(0, 4, (8,))
        criterion(model(points), target).backward()
        safe(safe_model(points), target).backward()


if __name__ == "__main__":
    assert all(loss < 0 for loss in train()), "nll_loss of probabilities is -p[y]"
    train_log()
