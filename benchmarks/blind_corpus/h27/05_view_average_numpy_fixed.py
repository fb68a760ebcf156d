"""FIXED version. Four-view mammography classifier: view predictions averaged via numpy.

Modelled on: https://github.com/nyukat/breast_cancer_classifier/issues/56

The user turned the repository's `run_model()` (inference code) into a
training step.  The per-view probabilities are converted to numpy
(`.detach().cpu().numpy()`) so they can be averaged across the four views,
and the averaged array is re-wrapped with
`torch.tensor(predictions, requires_grad=True)` before computing the loss.
`loss.backward()` now runs, but the new tensor is a fresh leaf: no gradient
reaches the model, so `optimizer.step()` never changes any weight.
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
    # (B, labels) per view, as numpy, like the repository's inference helper
    return {v: output[v].detach().cpu().numpy() for v in VIEWS}


def average_views(batch_predictions):
    return np.mean(np.stack([batch_predictions[v] for v in VIEWS]), axis=0)


def make_batch(n=8, in_dim=32):
    batch = {v: torch.randn(n, in_dim) for v in VIEWS}
    labels = (torch.rand(n, len(LABELS)) > 0.5).float()
    return batch, labels


def run_model(model, optimizer, batch, labels):
    model.train()
    optimizer.zero_grad()
    output = model(batch)
    # average the views with torch ops so the graph is kept
    predictions = torch.stack([output[v] for v in VIEWS]).mean(dim=0)
    loss = F.binary_cross_entropy(predictions, labels)
    loss.backward()
    optimizer.step()
    return loss


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
    run_model(model, optimizer, batch, labels)
    changed = any(not torch.equal(b, p) for b, p in zip(before, model.parameters()))
    if not changed:
        print("BUGGY: loss.backward() ran but no model parameter received a gradient")
    else:
        print("FIXED: ok")


if __name__ == "__main__":
    main([])
