"""Look-alike: DUQ trainer with a detaching Loss metric used only for logging.

Modelled on: https://github.com/pytorch/ignite/pull/1675 (counterpart)

The running-loss metric still detaches the prediction before computing its
value, exactly like the metric in the report, but here the trainer computes the
training loss itself from the attached ``y_pred`` and only hands the output to
the metric for the epoch average.  The centroid EMA update also uses detached
features, as DUQ does.  ``backward()`` runs on a loss with a graph.  Correct code.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class RunningLoss:
    """Accumulates an average loss over an epoch, like ignite.metrics.Loss."""

    def __init__(self, loss_fn, batch_size=len):
        self._loss_fn = loss_fn
        self._batch_size = batch_size
        self.reset()

    def reset(self):
        self._sum = 0.0
        self._num_examples = 0

    def update(self, y_pred, y):
        average_loss = self._loss_fn(y_pred.detach(), y)
        n = self._batch_size(y)
        self._sum += average_loss.item() * n
        self._num_examples += n
        return average_loss

    def compute(self):
        return self._sum / max(self._num_examples, 1)


class DUQHead(nn.Module):
    """RBF head: one centroid per class, outputs kernel values in (0, 1)."""

    def __init__(self, in_dim=8, feat_dim=16, n_classes=3, length_scale=0.5):
        super().__init__()
        self.feature = nn.Sequential(nn.Linear(in_dim, feat_dim), nn.ReLU())
        self.W = nn.Parameter(torch.randn(feat_dim, n_classes, feat_dim) * 0.1)
        self.register_buffer("centroids", torch.randn(n_classes, feat_dim))
        self.length_scale = length_scale

    def forward(self, x):
        z = torch.einsum("ij,mnj->imn", self.feature(x), self.W)
        diff = z - self.centroids.t().unsqueeze(0)
        return torch.exp(-(diff ** 2).mean(1) / (2 * self.length_scale ** 2))


def duq_bce(y_pred, y):
    return F.binary_cross_entropy(y_pred, F.one_hot(y, y_pred.shape[1]).float())


class DUQTrainer:
    def __init__(self, model, optimizer, loss_metric):
        self.model = model
        self.optimizer = optimizer
        self.loss_metric = loss_metric

    def train_step(self, x, y):
        self.model.train()
        self.optimizer.zero_grad()
        y_pred = self.model(x)
        loss = duq_bce(y_pred, y)
        loss.backward()
        self.optimizer.step()
        self.loss_metric.update(y_pred, y)
        self.update_centroids(x, y)
        return loss.item()

    def update_centroids(self, x, y, gamma=0.99):
        with torch.no_grad():
            z = torch.einsum("ij,mnj->imn", self.model.feature(x), self.model.W).detach()
            onehot = F.one_hot(y, self.model.centroids.shape[0]).float()
            counts = onehot.sum(0).clamp(min=1)
            means = torch.einsum("imn,in->nm", z, onehot) / counts.unsqueeze(1)
            self.model.centroids.mul_(gamma).add_((1 - gamma) * means)

    def run_epoch(self, loader):
        self.loss_metric.reset()
        for x, y in loader:
            self.train_step(x, y)
        return self.loss_metric.compute()


def make_loader(n_batches=5, bs=16, in_dim=8, n_classes=3):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(bs, in_dim, generator=g), torch.randint(0, n_classes, (bs,), generator=g))
            for _ in range(n_batches)]


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.05)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    model = DUQHead()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    trainer = DUQTrainer(model, opt, RunningLoss(duq_bce))
    loader = make_loader()
    return [trainer.run_epoch(loader) for _ in range(args.epochs)]


if __name__ == "__main__":
    losses = main([])
    assert len(losses) == 2
    print("OK")
