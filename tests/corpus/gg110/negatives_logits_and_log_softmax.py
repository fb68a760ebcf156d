"""Look-alikes of GG110 that are correct: logits into cross_entropy, log_softmax into
nll_loss, probabilities used only for metrics or distillation targets, a softmax that only
one branch applies, a model that applies softmax only at inference."""

import torch
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)
        self.log_softmax = nn.LogSoftmax(dim=1)

    def forward(self, x):
        return self.log_softmax(self.fc(x))


class InferenceSoftmax(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        logits = self.fc(x)
        if self.training:
            return logits
        return F.softmax(logits, dim=1)


def nll_pairing(loader):
    model = Net()
    for x, y in loader:
        loss = F.nll_loss(model(x), y)
        loss.backward()


def metrics_only(x, y):
    model = nn.Linear(16, 4)
    logits = model(x)
    probs = F.softmax(logits, dim=1)
    loss = nn.CrossEntropyLoss()(logits, y)
    loss.backward()
    return probs.max(dim=1).values.mean()


def distillation(x, y, teacher_logits, temperature=2.0):
    student = nn.Linear(16, 4)
    soft_targets = F.softmax(teacher_logits / temperature, dim=1)
    logits = student(x)
    loss = F.cross_entropy(logits, y) + F.cross_entropy(logits / temperature, soft_targets)
    loss.backward()


def redundant_log_softmax(x, y):
    model = nn.Linear(16, 4)
    loss = F.cross_entropy(F.log_softmax(model(x), dim=1), y)
    loss.backward()


def branch(x, y, calibrated):
    model = nn.Linear(16, 4)
    out = model(x)
    if calibrated:
        out = F.softmax(out, dim=1)
    loss = F.cross_entropy(out, y)
    loss.backward()


def train_mode_model(x, y):
    model = InferenceSoftmax()
    loss = F.cross_entropy(model(x), y)
    loss.backward()


def rebound(x, y):
    model = nn.Linear(16, 4)
    out = torch.softmax(model(x), dim=1)
    print(out.argmax(dim=1))
    out = model(x)
    loss = F.cross_entropy(out, y)
    loss.backward()


def transformed(x, y):
    model = nn.Linear(16, 4)
    sharpened = model(x).softmax(dim=1).log() * 5.0
    loss = F.cross_entropy(sharpened, y)
    loss.backward()
