"""Look-alike: four-view classifier that uses numpy only for reporting.

Modelled on: https://github.com/nyukat/breast_cancer_classifier/issues/56 (counterpart)

The training step averages the per-view probabilities with torch ops and
back-propagates through them; numpy (`.detach().cpu().numpy()`) and
`torch.tensor(...)` are only used afterwards to build a per-label report
from the already-used predictions.  Gradients reach every view column.
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

VIEWS = ["L-CC", "R-CC", "L-MLO", "R-MLO"]
LABELS = ["benign", "malignant"]


class ViewColumn(nn.Module):
    def __init__(self, in_dim=32, hidden=16):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, len(LABELS)))

    def forward(self, x):
        return self.fc(x)


class SplitBreastModel(nn.Module):
    def __init__(self, in_dim=32):
        super().__init__()
        self.columns = nn.ModuleDict({v: ViewColumn(in_dim) for v in VIEWS})

    def forward(self, batch):
        return {v: torch.sigmoid(self.columns[v](batch[v])) for v in VIEWS}


def compute_batch_predictions(output):
    return {v: output[v].detach().cpu().numpy() for v in VIEWS}


def make_batch(n=8, in_dim=32):
    batch = {v: torch.randn(n, in_dim) for v in VIEWS}
    labels = (torch.rand(n, len(LABELS)) > 0.5).float()
    return batch, labels


def run_model(model, optimizer, batch, labels):
    model.train()
    optimizer.zero_grad()
    output = model(batch)
    predictions = torch.stack([output[v] for v in VIEWS]).mean(dim=0)
    loss = F.binary_cross_entropy(predictions, labels)
    loss.backward()
    optimizer.step()
    # reporting only
    per_view = compute_batch_predictions(output)
    mean_np = np.mean(np.stack([per_view[v] for v in VIEWS]), axis=0)
    report = torch.tensor(mean_np).mean(dim=0)
    return loss.item(), dict(zip(LABELS, report.tolist()))


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=0.1)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(0)
    model = SplitBreastModel()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    before = [p.detach().clone() for p in model.parameters()]
    batch, labels = make_batch()
    loss, report = run_model(model, optimizer, batch, labels)
    changed = all(not torch.equal(b, p) for b, p in zip(before, model.parameters()))
    assert changed and set(report) == set(LABELS)
    print("OK")


if __name__ == "__main__":
    main([])
