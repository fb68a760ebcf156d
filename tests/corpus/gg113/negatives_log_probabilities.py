"""Look-alikes of GG113 that are correct (or not certainly a softmax output): log_softmax
and nn.LogSoftmax into nll_loss, the log of softmax probabilities (torch.log, `.log()`, with
an epsilon or a clamp, in place), probabilities used only for metrics while the loss takes
logits, softmax as a KL-divergence target, a softmax applied only at inference or on one
branch, a Sequential whose softmax layer is replaced, and softmax into other losses."""

import torch
import torch.nn.functional as F
from torch import nn


class LogSoftmaxNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)
        self.log_softmax = nn.LogSoftmax(dim=1)

    def forward(self, x):
        return self.log_softmax(self.fc(x))


class InferenceSoftmax(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        logits = self.fc(x)
        if self.training:
            return F.log_softmax(logits, dim=1)
        return F.softmax(logits, dim=1)


def log_softmax_pairs(model, x, y):
    a = F.nll_loss(F.log_softmax(model(x), dim=1), y)
    b = nn.NLLLoss()(model(x).log_softmax(dim=1), y)
    c = nn.NLLLoss()(LogSoftmaxNet()(x), y)
    return a + b + c


def log_of_probabilities(model, x, y):
    probs = F.softmax(model(x), dim=1)
    a = F.nll_loss(torch.log(probs), y)
    b = F.nll_loss(probs.log(), y)
    c = F.nll_loss(torch.log(probs + 1e-8), y)
    d = F.nll_loss(torch.log(probs.clamp(min=1e-8)), y)
    return a + b + c + d


def log_in_place(model, x, y):
    probs = F.softmax(model(x), dim=1)
    probs = probs.clamp(min=1e-8)
    probs.log_()
    return F.nll_loss(probs, y)


def metrics_only(model, x, y):
    logits = model(x)
    probs = F.softmax(logits, dim=1)
    loss = F.cross_entropy(logits, y)
    confidence = probs.max(dim=1).values.mean()
    return loss, confidence


def distillation(student, teacher, x, temperature=2.0):
    soft_targets = F.softmax(teacher(x).detach() / temperature, dim=1)
    log_student = F.log_softmax(student(x) / temperature, dim=1)
    return F.kl_div(log_student, soft_targets, reduction="batchmean")


def inference_only(x, y):
    model = InferenceSoftmax()
    model.train()
    return nn.NLLLoss()(model(x), y)


def one_branch(model, x, y, calibrated):
    out = F.log_softmax(model(x), dim=1)
    if calibrated:
        out = F.softmax(model(x), dim=1)
    return F.nll_loss(out, y)


def replaced_last_layer(x, y):
    model = nn.Sequential(nn.Linear(8, 3), nn.Softmax(dim=1))
    model[-1] = nn.LogSoftmax(dim=1)
    return F.nll_loss(model(x), y)


def other_losses(model, x, y):
    probs = F.softmax(model(x), dim=1)
    one_hot = F.one_hot(y, 3).float()
    mse = F.mse_loss(probs, one_hot)
    bce = nn.BCELoss()(probs, one_hot)
    return mse + bce


linear = nn.Linear(8, 3)
xs, ys = torch.randn(4, 8), torch.randint(0, 3, (4,))
log_softmax_pairs(linear, xs, ys).backward()
log_of_probabilities(linear, xs, ys).backward()
log_in_place(linear, xs, ys).backward()
metrics_only(linear, xs, ys)[0].backward()
distillation(linear, nn.Linear(8, 3), xs).backward()
inference_only(xs, ys).backward()
one_branch(linear, xs, ys, calibrated=False).backward()
replaced_last_layer(xs, ys).backward()
other_losses(linear, xs, ys).backward()
