"""A loss re-wrapped into a new leaf with `requires_grad=True`, from values whose origin the
file does not show, then backpropagated (GG109).

The fine-tuning script of huggingface/torchMoji (https://github.com/huggingface/torchMoji/issues/21)
met "element 0 of tensors does not require grad and does not have a grad_fn" and answered it
with `loss = Variable(loss, requires_grad=True)`: backward() ran, the validation loss stayed
the same epoch after epoch. The real cut was elsewhere (the model returned `outputs.data`),
in code the training step only calls. Whatever the wrapped values were, the leaf made here
is all the history the backpropagated value has: the gradient stops at it, nothing reaches
the model, and the leaf's own gradient is never read.

Here the scores come from a callable handed in (`score_fn`), so the analysis cannot tell
whether they had a history; the leaf is still certainly new. Two shapes: the wrapped loss
backpropagated as is, and a total of two re-wrapped terms.

The look-alikes: a leaf made of given values that an optimizer learns (a temperature, a
scale listed for the optimizer through a list), one whose gradient the code reads (a
sensitivity), and a loss that also runs through the model's own parameters.
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd import Variable

model = nn.Linear(6, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)


def finetune_step(score_fn, batch, labels):
    loss = F.cross_entropy(score_fn(batch), labels)
    loss = Variable(loss, requires_grad=True)  # expect: GG109
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def ranking_step(score_fn, pairs):
    hinge = [torch.relu(1.0 - score_fn(a) + score_fn(b)).mean() for a, b in pairs]
    spread = [score_fn(a).var() for a, _ in pairs]
    total = torch.tensor(hinge, requires_grad=True).mean()  # expect: GG109
    total = total + 0.1 * torch.tensor(spread, requires_grad=True).sum()
    optimizer.zero_grad()
    total.backward()
    optimizer.step()


def fit_temperature(start, steps):
    temperature = torch.tensor(start, requires_grad=True)
    opt = torch.optim.SGD([temperature], lr=0.1)
    for _ in range(steps):
        penalty = (temperature - 1.5).pow(2)
        opt.zero_grad()
        penalty.backward()
        opt.step()
    return temperature.detach()


def fit_scale(start, steps):
    scale = torch.tensor(start, requires_grad=True)
    params = [scale]
    opt = torch.optim.Adam(params, lr=0.1)
    for _ in range(steps):
        gap = (scale * 2.0 - 3.0).abs()
        opt.zero_grad()
        gap.backward()
        opt.step()
    return scale.detach()


def sensitivity(values):
    point = torch.tensor(values, requires_grad=True)
    energy = (point**2).sum()
    energy.backward()
    return point.grad


def weighted_step(batch, labels, weights):
    w = torch.tensor(weights, requires_grad=True)
    loss = (F.cross_entropy(model(batch), labels, reduction="none") * w).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    x, y = torch.randn(8, 6), torch.randint(0, 3, (8,))
    before = model.weight.detach().clone()
    finetune_step(lambda b: model(b).data, x, y)
    ranking_step(lambda b: model(b).detach().sum(1), [(x[:4], x[4:])])
    assert torch.equal(before, model.weight) and model.weight.grad is None
    assert abs(float(fit_temperature(1.0, 3)) - 1.0) > 1e-3
    assert abs(float(fit_scale(1.0, 3)) - 1.0) > 1e-3
    assert sensitivity([1.0, 2.0]) is not None
    weighted_step(x, y, [1.0] * 8)
    assert not torch.equal(before, model.weight)
