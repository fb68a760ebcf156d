"""A loss whose history is cut inside a criterion or helper, where requires_grad is then
forced, and which the training step backpropagates after the call returns it (GG109).

Modelled, in my own words, on:
* https://github.com/weizheliu/People-Flows/issues/7 -- the "element 0 of tensors does not
  require grad" error raised by `loss.backward()` in a `train(..., model, criterion,
  optimizer, ...)` function that is handed its criterion; the answer given was to add
  `requires_grad=True`, which silences the error without giving the loss a graph;
* https://github.com/brian6091/Dreambooth/issues/23 -- forcing `loss.requires_grad=True`
  showed the loss to be a leaf without a grad_fn before the forcing: afterwards backward runs
  and nothing upstream receives a gradient.

The forcing happens in one function (a criterion's `forward`, a helper returning the loss
alone or in a tuple) and backward in another: the forced leaf travels through the return
unchanged, so the backward call runs on it and stops there.

Look-alikes that must stay silent: a fresh leaf forced to require grad (no cut), a detached
input forced to require grad and then fed to the model (the gradient reaches the model
through the loss), a criterion that forces only on a branch that never runs with a tracked
input, and a module returning its own parameter.
"""

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F


class RankMarginLoss(nn.Module):
    """A hinge on distances mined in NumPy: the loss is re-made from an array."""

    def __init__(self, margin):
        super().__init__()
        self.margin = margin

    def forward(self, scores, labels):
        s = scores.detach().numpy()
        positive = s[np.arange(len(s)), labels.numpy()]
        hardest = np.where(np.eye(s.shape[1])[labels.numpy()] > 0, -np.inf, s).max(1)
        hinge = torch.from_numpy(np.maximum(hardest - positive + self.margin, 0.0)).float()
        loss = hinge.mean()
        loss.requires_grad = True  # expect: GG109
        return loss


def train(model, batches, optimizer, criterion):
    for x, y in batches:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def error_rate(logits, targets):
    return (logits.argmax(dim=1) != targets).float().mean().requires_grad_()  # expect: GG109


def error_rate_with_stats(logits, targets):
    wrong = (logits.argmax(dim=1) != targets).float().mean()
    wrong.requires_grad_(True)  # expect: GG109
    return wrong, {"wrong": wrong.item()}


def train_on_error_rate(model, batches, optimizer):
    for x, y in batches:
        loss = error_rate(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_on_error_rate_with_stats(model, batches, optimizer):
    for x, y in batches:
        loss, stats = error_rate_with_stats(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_on_scaled_error_rate(model, batches, optimizer):
    # Still a bug, but an op made another tensor: the fact is the forced tensor's own.
    for x, y in batches:
        loss = 0.5 * error_rate_with_stats(model(x), y)[0]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


# --- look-alikes -------------------------------------------------------------------------


def fresh_offset():
    """A genuine leaf: nothing was cut before the forcing."""
    offset = torch.randn(())
    offset.requires_grad = True
    return offset


def fit_offset(steps):
    offset = fresh_offset()
    for _ in range(steps):
        offset.backward()
    return offset


def adversarial_copy(x):
    """FGSM: a detached copy of the input requires grad; the model sees it."""
    x_adv = x.detach().clone()
    x_adv.requires_grad_()
    return x_adv


def fgsm_step(model, x, y):
    x_adv = adversarial_copy(x)
    loss = F.cross_entropy(model(x_adv), y)
    loss.backward()
    return (x_adv + 0.01 * x_adv.grad.sign()).detach()


class GuardedLoss(nn.Module):
    """Forces only when its input carried no graph: with a model's output it never does."""

    def forward(self, pred, target):
        loss = F.cross_entropy(pred, target)
        if not loss.requires_grad:
            loss = loss.detach()
            loss.requires_grad_()
        return loss


def fit(model, batches, optimizer, criterion):
    for x, y in batches:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


class Temperature(nn.Module):
    """A learnable scalar whose forward returns the parameter itself."""

    def __init__(self):
        super().__init__()
        self.log_t = nn.Parameter(torch.zeros(()))

    def forward(self):
        return self.log_t


def train_temperature(temperature, steps):
    for _ in range(steps):
        t = temperature()
        t.backward()


if __name__ == "__main__":
    torch.manual_seed(0)
    batches = [(torch.randn(8, 5), torch.randint(0, 3, (8,))) for _ in range(3)]
    net = nn.Linear(5, 3)
    sgd = torch.optim.SGD(net.parameters(), lr=0.1)
    before = net.weight.detach().clone()
    train(net, batches, sgd, RankMarginLoss(0.5))
    train_on_error_rate(net, batches, sgd)
    train_on_error_rate_with_stats(net, batches, sgd)
    train_on_scaled_error_rate(net, batches, sgd)
    assert all(p.grad is None for p in net.parameters()), "a gradient reached the model"
    assert torch.equal(before, net.weight), "the weights moved"
    # Without the forcing, the loss raises the error the forcing silenced.
    try:
        logits = net(batches[0][0])
        (logits.argmax(1) != batches[0][1]).float().mean().backward()  # expect: GG108
    except RuntimeError as error:
        assert "does not require grad and does not have a grad_fn" in str(error)
    else:
        raise AssertionError("backward ran on a loss without history")

    assert fit_offset(2).grad is not None
    fgsm_step(net, *batches[0])
    assert net.weight.grad is not None
    guarded = nn.Linear(5, 3)
    fit(guarded, batches, torch.optim.SGD(guarded.parameters(), lr=0.1), GuardedLoss())
    assert guarded.weight.grad is not None
    temperature = Temperature()
    train_temperature(temperature, 2)
    assert temperature.log_t.grad is not None
    print("ok")
