"""Losses written by hand that round or take the sign of the network's output before
comparing it with the target: `torch.round`, `.floor()` and `torch.sign` keep a grad_fn, so
`loss.backward()` runs without error, but their gradient is zero everywhere: every
parameter gets a zero gradient and the model never learns. The fixed twins compare the
probabilities (or use a straight-through estimator); the look-alikes round only what is
logged, or add a differentiable term that carries the gradient.

Sources (rewritten in our own words, structure kept):
* https://ai.stackexchange.com/questions/41264/how-to-do-backpropagation-with-argmax -
  rounding the network's output before using it cuts the learning signal.
* https://php.bkmy88.com/faq/1835025.html - hard predictions given to the loss.
* http://iopenv.com/V66QRYJUK/How-to-overcome-the-non-differentiability-of-argmax-in-neural-network-training
  - the straight-through trick (`x + (hard - x).detach()`).
"""

import torch
import torch.nn.functional as F
from torch import nn


class Counter(nn.Module):
    """Predicts how many objects an image holds: a whole number."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 1)

    def forward(self, x):
        return F.softplus(self.fc(x))


def count_loss(model, x, counts):
    predicted = model(x).floor()  # expect: GG108
    return F.l1_loss(predicted, counts)


def count_loss_fixed(model, x, counts):
    predicted = model(x)
    return F.l1_loss(predicted, counts)


def count_loss_straight_through(model, x, counts):
    soft = model(x)
    hard = soft + (soft.floor() - soft).detach()
    return F.l1_loss(hard, counts)


def train(model, optimizer, batches, loss_fn):
    for x, counts in batches:
        loss = loss_fn(model, x, counts)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


counter = Counter()
opt = torch.optim.SGD(counter.parameters(), lr=0.1)
batches = [(torch.randn(6, 8), torch.randint(0, 5, (6, 1)).float())]
x0, counts0 = batches[0]
loss = count_loss(counter, x0, counts0)
loss.backward()
assert counter.fc.weight.grad.abs().sum() == 0
counter.zero_grad()
count_loss_fixed(counter, x0, counts0).backward()
assert counter.fc.weight.grad.abs().sum() > 0
counter.zero_grad()
count_loss_straight_through(counter, x0, counts0).backward()
assert counter.fc.weight.grad.abs().sum() > 0

# A direction classifier whose loss compares signs.
direction = nn.Linear(4, 1)
x, target = torch.randn(10, 4), torch.sign(torch.randn(10, 1))
agreement = (torch.sign(direction(x)) * target).mean()  # expect: GG108
loss = 1.0 - agreement
loss.backward()
assert direction.weight.grad.abs().sum() == 0

# Look-alikes: rounding what is logged; a rounded term next to a differentiable one.
direction.zero_grad()
out = direction(x)
mse = F.mse_loss(out, target)
rounded_error = (torch.round(out) - target).abs().mean()
print(f"mse {mse.item():.3f} rounded error {rounded_error.item():.3f}")
mse.backward()
mixed = F.mse_loss(direction(x), target) + 0.1 * torch.round(direction(x)).mean()
mixed.backward()
assert direction.weight.grad.abs().sum() > 0
