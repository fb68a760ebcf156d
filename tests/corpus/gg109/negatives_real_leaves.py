"""Look-alikes of GG109 that are correct code: requires_grad set on genuine leaves, or on a
detached copy that only feeds the loss backpropagated.

Patterns from real code, in my own words:
* FGSM / PGD adversarial examples (e.g. the PyTorch "Adversarial Example Generation"
  tutorial, https://pytorch.org/tutorials/beginner/fgsm_tutorial.html): the input is made to
  require grad, the loss computed from it is backpropagated;
* the WGAN-GP gradient penalty (https://github.com/caogang/wgan-gp): interpolates are
  detached and made to require grad, `torch.autograd.grad` differentiates through them;
* transformers' `enable_input_require_grads`
  (https://github.com/huggingface/transformers/blob/main/src/transformers/modeling_utils.py):
  a frozen embedding's output is made to require grad so gradient checkpointing and adapters
  after it get gradients;
* a leaf input built from data (`torch.tensor(array, requires_grad=True)`), and a check of
  `loss.requires_grad` before backward.
"""

import numpy as np
import torch
from torch import nn

model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 4))
criterion = nn.CrossEntropyLoss()


def fgsm(x, y, epsilon):
    x_adv = x.detach().clone()
    x_adv.requires_grad = True
    loss = criterion(model(x_adv), y)
    model.zero_grad()
    loss.backward()
    return (x_adv + epsilon * x_adv.grad.sign()).detach()


def pgd(x, y, steps, alpha):
    x_adv = x.clone().detach().requires_grad_(True)
    for _ in range(steps):
        loss = criterion(model(x_adv), y)
        grad = torch.autograd.grad(loss, x_adv)[0]
        x_adv = (x_adv + alpha * grad.sign()).detach().requires_grad_(True)
    return x_adv


critic = nn.Sequential(nn.Linear(20, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))


def gradient_penalty(real, fake):
    alpha = torch.rand(real.size(0), 1)
    interpolates = (alpha * real + (1 - alpha) * fake).detach()
    interpolates.requires_grad_(True)
    scores = critic(interpolates)
    gradients = torch.autograd.grad(
        scores, interpolates, torch.ones_like(scores), create_graph=True
    )[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


embedding = nn.Embedding(1000, 32)
embedding.requires_grad_(False)
adapter = nn.Linear(32, 32)


def adapter_step(input_ids, target):
    hidden = embedding(input_ids)
    hidden.requires_grad_(True)
    loss = nn.functional.mse_loss(adapter(hidden), target)
    loss.backward()
    return loss.detach()


def fit_curve(xs):
    coefficients = torch.tensor(np.zeros(3), requires_grad=True)
    optimizer = torch.optim.SGD([coefficients], lr=0.01)
    points = torch.randn(10)
    fitted = coefficients[0] + coefficients[1] * points + coefficients[2] * points**2
    loss = ((fitted - xs) ** 2).mean()
    loss.backward()
    optimizer.step()


def saliency(x, target_class):
    image = torch.randn(1, 20)
    image.requires_grad = True
    score = model(image)[0, target_class]
    score.backward()
    return image.grad.abs()


def checked_step(batch, labels, optimizer):
    loss = criterion(model(batch), labels)
    if loss.requires_grad:
        loss.backward()
        optimizer.step()
