"""Scores against class centres that `self` keeps, every store of them without history (GG101).

Modelled on https://github.com/sicara/easy-few-shot-learning/issues/55 (a prototype
classifier written for episodes, trained "classically"): features come from a method under
`@torch.no_grad()`, and the class centres the scores compare them with are kept on `self`,
set to zeros in `__init__` and recomputed from no-grad features in another method. Whichever
store ran last, the centres have no history, so the scores have none and backward() raises
"element 0 of tensors does not require grad".

The look-alikes keep centres that may have history: one recomputed from a trainable
projection, one nudged in place towards a trainable offset.
"""

import torch
import torch.nn.functional as F
from torch import nn


class CentroidMatcher(nn.Module):
    def __init__(self, classes=3, dim=4):
        super().__init__()
        self.encoder = nn.Linear(6, dim)
        self.classes = classes
        self.centres = torch.zeros(classes, dim)

    @torch.no_grad()  # expect: GG101
    def embed(self, x):
        return F.normalize(self.encoder(x), dim=-1)

    def fit_centres(self, x, y):
        onehot = F.one_hot(y, self.classes).float()
        counts = onehot.sum(0).clamp(min=1.0).unsqueeze(1)
        self.centres = onehot.t() @ self.embed(x) / counts

    def forward(self, x):
        return -torch.cdist(self.embed(x), self.centres)


class ProjectedCentres(nn.Module):
    """Centres recomputed through a trainable projection: they carry its history."""

    def __init__(self, classes=3, dim=4):
        super().__init__()
        self.encoder = nn.Linear(6, dim)
        self.project = nn.Linear(dim, dim)
        self.classes = classes
        self.anchors = torch.zeros(classes, dim)

    @torch.no_grad()
    def embed(self, x):
        return F.normalize(self.encoder(x), dim=-1)

    def fit_centres(self, x, y):
        onehot = F.one_hot(y, self.classes).float()
        self.anchors = self.project(onehot.t() @ self.embed(x))

    def forward(self, x):
        return -torch.cdist(self.embed(x), self.anchors)


class NudgedCentres(nn.Module):
    """Centres moved in place by a trainable offset: the in-place add gives them history."""

    def __init__(self, classes=3, dim=4):
        super().__init__()
        self.encoder = nn.Linear(6, dim)
        self.offset = nn.Parameter(torch.zeros(classes, dim))
        self.means = torch.zeros(classes, dim)

    @torch.no_grad()
    def embed(self, x):
        return F.normalize(self.encoder(x), dim=-1)

    def fit_centres(self, x, y):
        self.means = torch.zeros(self.offset.shape)
        self.means.add_(self.offset)

    def forward(self, x):
        return -torch.cdist(self.embed(x), self.means)


def train_matcher(x, y):
    model = CentroidMatcher()
    model.fit_centres(x, y)
    loss = F.cross_entropy(model(x), y)
    loss.backward()


def train_projected(x, y):
    model = ProjectedCentres()
    model.fit_centres(x, y)
    loss = F.cross_entropy(model(x), y)
    loss.backward()


def train_nudged(x, y):
    model = NudgedCentres()
    model.fit_centres(x, y)
    loss = F.cross_entropy(model(x), y)
    loss.backward()


if __name__ == "__main__":
    x, y = torch.randn(9, 6), torch.arange(3).repeat(3)
    train_projected(x, y)
    train_nudged(x, y)
    try:
        train_matcher(x, y)
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("backward through centres without history ran")
    print("ok")
