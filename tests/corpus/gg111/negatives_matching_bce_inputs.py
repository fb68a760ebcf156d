"""Look-alikes of GG111 that are correct: sigmoid output into BCELoss, logits into the
with-logits loss, probabilities used only for metrics, a branch applying the sigmoid on one
path, outputs of unknown models, and a head whose layer is swapped after construction."""

import torch
import torch.nn.functional as F
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 1)

    def forward(self, x):
        return self.fc(x)


def sigmoid_into_bce(features, targets):
    head = nn.Linear(64, 1)
    probs = torch.sigmoid(head(features))
    loss = nn.BCELoss()(probs, targets)
    loss.backward()


def logits_into_with_logits(features, targets):
    head = nn.Linear(64, 1)
    logits = head(features)
    loss = nn.BCEWithLogitsLoss()(logits, targets)
    loss.backward()
    return (torch.sigmoid(logits) > 0.5).float().mean()


def sequential_with_sigmoid(features, targets):
    net = nn.Sequential(nn.Linear(64, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
    loss = F.binary_cross_entropy(net(features), targets)
    loss.backward()


def one_branch(features, targets, squash):
    head = nn.Linear(64, 1)
    out = head(features)
    if squash:
        out = out.sigmoid()
    loss = F.binary_cross_entropy_with_logits(out, targets)
    loss.backward()


def unknown_model(model, features, targets):
    loss = nn.BCELoss()(model(features), targets)
    loss.backward()


def swapped_head(features, targets):
    model = Head()
    model.fc = nn.Sequential(nn.Linear(64, 1), nn.Sigmoid())
    loss = nn.BCELoss()(model(features), targets)
    loss.backward()


def appended_sigmoid(features, targets):
    net = nn.Sequential(nn.Linear(64, 1))
    net.append(nn.Sigmoid())
    loss = nn.BCELoss()(net(features), targets)
    loss.backward()
