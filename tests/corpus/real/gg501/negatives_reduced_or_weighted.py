"""The fixed versions: reduced to a scalar, or backpropagated with an explicit gradient.

Sources (rewritten in our own words, structure kept):
* https://github.com/Animadversio/GAN-Geometry/issues/4 - the reporter's fix: `activs.mean()`.
* https://github.com/1Konny/gradcam_plus_plus-pytorch/issues/7 - one image at a time (a single
  score), or the batch's scores summed.
* https://github.com/cybertronai/autograd-hacks/issues/7 - `output.backward(gradient=...)` with
  a one-hot gradient for the wanted output.
* https://github.com/WisconsinAIVision/MaskPoint/issues/7 - the per-GPU losses averaged.
"""

import torch
from torch import nn


def hvp_with_known_networks(code, vec, eps=1e-3):
    generator = nn.Linear(8, 16)
    objective = nn.Linear(16, 4)
    perturb_vecs = (code + eps * vec).detach().requires_grad_(True)
    img = generator(perturb_vecs)
    activs = objective(torch.tanh(img))
    return torch.autograd.grad(activs.mean(), perturb_vecs)[0]


def gradcam_scores(inputs, class_idx):
    model_arch = nn.Sequential(nn.Flatten(), nn.Linear(12, 5))
    logit = model_arch(inputs)
    score = logit[:, class_idx].sum()
    model_arch.zero_grad()
    score.backward()
    return [p.grad for p in model_arch.parameters()]


def per_example_grads(inputs, wanted):
    model = nn.Sequential(nn.Linear(10, 5), nn.ReLU(), nn.Linear(5, 3))
    output = model(inputs)
    grad_out = torch.zeros_like(output)
    grad_out[:, wanted] = 1.0
    output.backward(gradient=grad_out)
    return [p.grad for p in model.parameters()]


def per_example_grads_autograd(inputs):
    model = nn.Sequential(nn.Linear(10, 5), nn.ReLU(), nn.Linear(5, 3))
    output = model(inputs)
    return torch.autograd.grad(output, list(model.parameters()), grad_outputs=torch.ones_like(output))


def pretrain_epoch(base_model, train_dataloader, optimizer):
    base_model.train()
    for points in train_dataloader:
        _loss = base_model(points)
        _loss = _loss.mean()
        _loss.backward()
        optimizer.step()
        base_model.zero_grad()


def scalar_output_regression(inputs, targets):
    model = nn.Linear(10, 1)
    loss = nn.functional.mse_loss(model(inputs), targets, reduction="none")
    loss.mean().backward()
    return model.weight.grad
