"""Ops whose backward formula reads their own result, changed in place before backward.

Besides sigmoid, tanh, exp and softmax, torch keeps the result of `torch.reciprocal`,
`torch.expm1`, `torch.exp2`, `torch.tan`, `torch.special.expit` and `F.softmin` /
`nn.Softmin` / `nn.Softmax2d` (checked with torch 2.13.0: changing the result in place
makes backward raise "one of the variables needed for gradient computation has been
modified by an inplace operation"; changing their input does not).

Shapes modelled on real reports (rewritten in our own words):
* https://github.com/pytorch/pytorch/issues/9391 - a result changed by index assignment
  (`b[1] = 2`) after an op that keeps it; the same values computed by hand work.
* A depth head turning a predicted disparity into depth through a reciprocal and then
  zeroing invalid pixels in place (our own example of the same shape).
* https://github.com/wutong16/DistributionBalancedLoss/issues/20 - a multi-label loss that
  edits the sigmoid probabilities of ignored labels (here spelt `torch.special.expit`).
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
        depth = torch.reciprocal(disparity)
        depth[~valid] = 0.0  # expect: GG302
        return depth


def masked_probability_loss(logits, labels, ignore):
    probs = torch.special.expit(logits)
    probs[ignore] = 0.5  # expect: GG302
    return F.binary_cross_entropy(probs, labels)


def soft_assignment(dist, invalid):
    weights = F.softmin(dist, dim=-1)
    weights.masked_fill_(invalid, 0.0)  # expect: GG302
    return weights


def growth_rate(log_rate):
    rate = torch.expm1(log_rate)
    rate.clamp_(min=1e-3)  # expect: GG302
    return rate


def train_depth(head, loader):
    optimizer = torch.optim.Adam(head.parameters(), lr=1e-4)
    for features, valid, target in loader:
        optimizer.zero_grad()
        loss = (head(features, valid) - target).abs().mean()
        loss.backward()
        optimizer.step()


def train_tagger(model, batches):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, labels, ignore, dist_mask in batches:
        optimizer.zero_grad()
        logits = model(x)
        loss = masked_probability_loss(logits, labels, ignore)
        loss = loss + soft_assignment(logits, dist_mask).mean()
        loss = loss + growth_rate(logits).mean()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    feats = torch.randn(2, 4, 5, 5)
    valid = torch.rand(2, 1, 5, 5) > 0.2
    try:
        train_depth(DepthHead(), [(feats, valid, torch.rand(2, 1, 5, 5))])
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")
    x = torch.randn(4, 6)
    labels = torch.randint(0, 2, (4, 3)).float()
    try:
        train_tagger(nn.Linear(6, 3), [(x, labels, labels > 0, labels < 1)])
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")
