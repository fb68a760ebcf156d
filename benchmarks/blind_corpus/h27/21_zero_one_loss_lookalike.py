"""Look-alike: classifier trained with BCE that reports the 0-1 error.

Modelled on: https://discuss.pytorch.org/t/built-in-0-1-loss-function/216747 (counterpart)

The thresholded comparison `(prob > 0.5) != target` is still computed, but
only as a logged metric; the value passed to `backward()` is the
differentiable binary cross-entropy.
(The paragraph below describes the mistake this file avoids.)

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
        prob = self.model(x)
        loss = nn.functional.binary_cross_entropy(prob, y)
        loss.backward()
        self.optimizer.step()
        return self.criterion(prob.detach(), y).item()

    def fit(self, x, y, epochs):
        return [self.step(x, y) for _ in range(epochs)]


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--lr", type=float, default=0.5)
    args = p.parse_args(argv)
    torch.manual_seed(0)
    x, y = make_data()
    trainer = Trainer(Classifier(), ZeroOneLoss(), args.lr)
    try:
        errors = trainer.fit(x, y, args.epochs)
        assert all(0.0 <= e <= 1.0 for e in errors)
        print("OK")
    except RuntimeError as e:
        print(f"unexpected: {e}")


if __name__ == "__main__":
    main([])
