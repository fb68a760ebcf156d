"""An attack loop that sets `requires_grad = True` on the image it updated in the previous
step (GG401, from the second iteration on).

Source (rewritten in our own words, structure kept):
https://github.com/Harry24k/adversarial-attacks-pytorch/issues/2 - the attack's loop sets
`image.requires_grad = True`, takes the gradient, and steps `image = image + r`; the next
pass raises "you can only change requires_grad flags of leaf variables". The fix detaches
the stepped image. Here the model and inputs are built in the file (checked under
torch 2.13.0); the look-alikes detach each step, use `requires_grad_()` on a fresh copy, or
skip the step with `continue`.
"""

import torch
from torch import nn


def pgd(model, x, y, eps=0.03, alpha=0.01, steps=5):
    x_adv = x.clone()
    for _ in range(steps):
        x_adv.requires_grad = True  # expect: GG401
        loss = nn.functional.cross_entropy(model(x_adv), y)
        grad = torch.autograd.grad(loss, x_adv)[0]
        x_adv = x_adv + alpha * grad.sign()
        x_adv = torch.min(torch.max(x_adv, x - eps), x + eps)
    return x_adv


def pgd_detached(model, x, y, eps=0.03, alpha=0.01, steps=5):
    x_adv = x.clone()
    for _ in range(steps):
        x_adv.requires_grad = True
        loss = nn.functional.cross_entropy(model(x_adv), y)
        grad = torch.autograd.grad(loss, x_adv)[0]
        x_adv = x_adv.detach() + alpha * grad.sign()
        x_adv = torch.min(torch.max(x_adv, x - eps), x + eps)
    return x_adv


def pgd_fresh_leaf(model, x, y, alpha=0.01, steps=5):
    x_adv = x.clone()
    for _ in range(steps):
        x_adv = x_adv.detach().requires_grad_()
        loss = nn.functional.cross_entropy(model(x_adv), y)
        grad = torch.autograd.grad(loss, x_adv)[0]
        x_adv = x_adv + alpha * grad.sign()
    return x_adv


def pgd_skipping(model, x, y, alpha=0.01, steps=5):
    x_adv = x.clone()
    for step in range(steps):
        if step % 2:
            continue
        x_adv = x.clone()
        x_adv.requires_grad = True
        loss = nn.functional.cross_entropy(model(x_adv), y)
        grad = torch.autograd.grad(loss, x_adv)[0]
        x_adv = (x_adv + alpha * grad.sign()).detach()
    return x_adv


model = nn.Linear(4, 3)
inputs, labels = torch.rand(2, 4), torch.tensor([0, 1])
pgd_detached(model, inputs, labels)
pgd_fresh_leaf(model, inputs, labels)
pgd_skipping(model, inputs, labels)
try:
    pgd(model, inputs, labels)
except RuntimeError as error:
    assert "only change requires_grad flags of leaf variables" in str(error)
else:
    raise AssertionError("pgd ran")
