"""Helpers given gradients that hand them only to imported functions: look-alikes of a
second derivative through gradients without history (GG503 must stay silent).

The same shape as `hutchinson_probes_through_a_helper.py` (a helper whose parameters reach
nothing but `torch.autograd.grad` or `torch.linalg`), with gradients that keep their graph
(`create_graph=True`), or gradients only measured, never differentiated again.
"""

import numpy as np
import torch
from torch import nn


def probe_product(grads, params, probes):
    return torch.autograd.grad(grads, params, grad_outputs=probes, retain_graph=True)


def gradient_norm(grads):
    return torch.linalg.vector_norm(torch.cat([g.flatten() for g in grads]))


def gradient_summary(grads):
    return np.round(np.array([float(g.abs().max()) for g in grads]), 4)


def hessian_diagonal(model, x, y, samples=3):
    params = [p for p in model.parameters() if p.requires_grad]
    loss = nn.functional.mse_loss(model(x), y)
    grads = torch.autograd.grad(loss, params, create_graph=True)
    diagonal = [torch.zeros_like(p) for p in params]
    for _ in range(samples):
        probes = [torch.randint_like(p, 2) * 2 - 1 for p in params]
        products = probe_product(grads, params, probes)
        for total, z, hz in zip(diagonal, probes, products):
            total.add_(z.detach() * hz.detach() / samples)
    return diagonal


def measured_gradients(model, x, y):
    loss = nn.functional.mse_loss(model(x), y)
    grads = torch.autograd.grad(loss, list(model.parameters()))
    return gradient_norm(grads), gradient_summary(grads)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 1))
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    assert len(hessian_diagonal(net, x, y)) == 4
    norm, summary = measured_gradients(net, x, y)
    assert norm > 0 and summary.shape == (4,)
    print("ok")
