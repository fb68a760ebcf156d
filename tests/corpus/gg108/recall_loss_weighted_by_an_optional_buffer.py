"""A per-class recall loss counted from argmax hits and weighted by optional class weights
(GG108).

Modelled on https://github.com/shuaizzZ/Recall-Loss-PyTorch/issues/1 (a recall loss
built from hard predictions, which has no gradient): the loss module keeps its class
weights as a buffer when it is given some, and `None` otherwise, and scales the recall by
them when they are there. A buffer made from a list of numbers has no history, nor has
None: whichever `__init__` kept, the weighted recall depends on the model only through the
argmax hits, and backward() raises "element 0 of tensors does not require grad".

The look-alikes weight a soft recall (softmax probabilities: differentiable), and keep the
class weights as a trainable parameter (the loss then has a history through them).
"""

import torch
import torch.nn.functional as F
from torch import nn


class HardRecallLoss(nn.Module):
    def __init__(self, classes, weights=None, eps=1e-6):
        super().__init__()
        self.classes = classes
        self.eps = eps
        if weights is None:
            self.weights = None
        else:
            self.register_buffer("weights", torch.tensor(weights, dtype=torch.float32))

    def forward(self, logits, target):
        hits = (logits.argmax(dim=1) == target).float()  # expect: GG108
        onehot = F.one_hot(target, self.classes).float()
        recall = (hits.unsqueeze(1) * onehot).sum(0) / (onehot.sum(0) + self.eps)
        if self.weights is not None:
            recall = recall * self.weights
        return 1.0 - recall.mean()


class SoftRecallLoss(nn.Module):
    def __init__(self, classes, weights=None, eps=1e-6):
        super().__init__()
        self.classes = classes
        self.eps = eps
        if weights is None:
            self.scales = None
        else:
            self.register_buffer("scales", torch.tensor(weights, dtype=torch.float32))

    def forward(self, logits, target):
        probs = logits.softmax(dim=1)
        onehot = F.one_hot(target, self.classes).float()
        recall = (onehot * probs).sum(0) / (onehot.sum(0) + self.eps)
        if self.scales is not None:
            recall = recall * self.scales
        return 1.0 - recall.mean()


class LearnedWeightRecallLoss(nn.Module):
    def __init__(self, classes, eps=1e-6):
        super().__init__()
        self.classes = classes
        self.eps = eps
        self.register_parameter("importance", nn.Parameter(torch.ones(classes)))

    def forward(self, logits, target):
        hits = (logits.argmax(dim=1) == target).float()
        onehot = F.one_hot(target, self.classes).float()
        recall = (hits.unsqueeze(1) * onehot).sum(0) / (onehot.sum(0) + self.eps)
        return 1.0 - (recall * self.importance).mean()


def train_hard(model, x, y):
    criterion = HardRecallLoss(3, weights=[0.5, 1.0, 1.5])
    loss = criterion(model(x), y)
    loss.backward()


def train_soft(model, x, y):
    criterion = SoftRecallLoss(3, weights=[0.5, 1.0, 1.5])
    loss = criterion(model(x), y)
    loss.backward()


def train_learned(model, x, y):
    criterion = LearnedWeightRecallLoss(3)
    loss = criterion(model(x), y)
    loss.backward()


if __name__ == "__main__":
    net = nn.Linear(4, 3)
    x, y = torch.randn(12, 4), torch.arange(3).repeat(4)
    train_soft(net, x, y)
    train_learned(net, x, y)
    try:
        train_hard(net, x, y)
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("backward through a hard recall ran")
    print("ok")
