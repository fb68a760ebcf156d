"""Look-alikes of `results_kept_by_their_ops.py` that run (checked with torch 2.13.0): the
result changed in place belongs to an op that keeps only its input (`log1p`, `softplus`,
`erf`), or to a copy (`.clone()`, `.detach()`), or no graph keeps it (computed under
`torch.no_grad()` or from tensors that do not require grad), or the change follows the
backward pass.
"""

import torch
import torch.nn.functional as F
from torch import nn


class DepthHead(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.disp = nn.Conv2d(channels, 1, 3, padding=1)

    def forward(self, features, valid):
        disparity = F.softplus(self.disp(features)) + 0.1
        depth = torch.reciprocal(disparity).clone()
        depth[~valid] = 0.0
        return depth


def log_counts(pred_counts, invalid):
    logged = torch.log1p(pred_counts)
    logged[invalid] = 0.0
    return logged


def smooth_scores(raw, invalid):
    scores = F.softplus(raw)
    scores.masked_fill_(invalid, 0.0)
    scores += torch.erf(raw)
    return scores


def preview_depth(head, features, valid):
    with torch.no_grad():
        depth = torch.reciprocal(F.softplus(head.disp(features)) + 0.1)
        depth[~valid] = 0.0
    return depth


def detached_probabilities(logits, ignore):
    probs = torch.special.expit(logits).detach()
    probs[ignore] = 0.5
    return probs


def schedule(steps):
    rates = torch.expm1(torch.linspace(0, 1, steps))
    rates.clamp_(min=1e-3)
    return rates


def train(head, loader):
    optimizer = torch.optim.Adam(head.parameters(), lr=1e-4)
    for features, valid, target in loader:
        optimizer.zero_grad()
        depth = head(features, valid)
        loss = (depth - target).abs().mean()
        loss = loss + log_counts(depth.flatten(1).sum(1), depth.flatten(1).sum(1) < 0).mean()
        loss = loss + smooth_scores(depth, ~valid).mean()
        loss.backward()
        optimizer.step()


def changed_after_backward(logits):
    probs = torch.special.expit(logits)
    probs.sum().backward()
    probs[0] = 0.5
    return probs


if __name__ == "__main__":
    head = DepthHead()
    feats = torch.randn(2, 4, 5, 5)
    valid = torch.rand(2, 1, 5, 5) > 0.2
    train(head, [(feats, valid, torch.rand(2, 1, 5, 5))])
    preview_depth(head, feats, valid)
    detached_probabilities(torch.randn(3, 2, requires_grad=True), torch.rand(3, 2) > 0.5)
    schedule(5)
    changed_after_backward(torch.randn(3, requires_grad=True))
