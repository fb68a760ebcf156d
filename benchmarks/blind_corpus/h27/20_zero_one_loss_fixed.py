"""FIXED version. Binary classifier trained directly on a 0-1 (misclassification) loss.

Modelled on: https://discuss.pytorch.org/t/built-in-0-1-loss-function/216747

The user wanted to train with the 0-1 loss instead of a surrogate and wrote a
criterion that thresholds the model output and compares it with the target.
The comparison (`!=`) produces a boolean tensor with no autograd history and
the `.float().mean()` that follows cannot restore it, so
`loss.backward()` raises "element 0 of tensors does not require grad and
does not have a grad_fn" (and even if forced, the gradient would be zero).
"""
import argparse

import torch
import torch.nn as nn


class SoftZeroOneLoss(nn.Module):
    """Differentiable surrogate: expected misclassification under the model."""

    def forward(self, prob, target):
        return (prob * (1 - target) + (1 - prob) * target).mean()


class ZeroOneLoss(nn.Module):
    def __init__(self, threshold=0.5):
        super().__init__()
        self.threshold = threshold

    def forward(self, prob, target):
        pred = prob > self.threshold
        return (pred != target.bool()).float().mean()


class Classifier(nn.Module):
    def __init__(self, in_dim=10):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x):
        return torch.sigmoid(self.body(x)).squeeze(1)


def make_data(n=64, in_dim=10):
    x = torch.randn(n, in_dim)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).float()
    return x, y


class Trainer:
    def __init__(self, model, criterion, lr):
        self.model, self.criterion = model, criterion
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)

    def step(self, x, y):
        self.optimizer.zero_grad()
        loss = self.criterion(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, x, y, epochs):
        return [self.step(x, y) for _ in range(epochs)]


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--lr", type=float, default=0.5)
    args = p.parse_args(argv)
    torch.manual_seed(0)
    x, y = make_data()
    trainer = Trainer(Classifier(), SoftZeroOneLoss(), args.lr)
    try:
        losses = trainer.fit(x, y, args.epochs)
        with torch.no_grad():
            err = ZeroOneLoss()(trainer.model(x), y).item()  # metric only
        assert losses[-1] < losses[0] and 0.0 <= err <= 1.0
        print("FIXED: ok")
    except RuntimeError as e:
        print(f"BUGGY: {e}")


if __name__ == "__main__":
    main([])
