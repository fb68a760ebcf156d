"""A Hutchinson estimate of the Hessian diagonal whose helper differentiates gradients
without history (GG503).

Modelled on https://github.com/kyegomez/Sophia/issues/7: the Sophia optimizer's
Hutchinson estimator differentiates `grad` a second time and fails with "element 0 of
tensors does not require grad and does not have a grad_fn" because the gradients it is
given were taken without `create_graph=True`. Here the second derivative lives in a small
helper whose parameters reach nothing but `torch.autograd.grad`; the helper learns from its
only caller that the gradients it gets have no graph, so the first-order call is reported.
"""

import torch
from torch import nn


def probe_product(grads, params, probes):
    return torch.autograd.grad(grads, params, grad_outputs=probes, retain_graph=True)


def hessian_diagonal(model, x, y, samples=3):
    params = [p for p in model.parameters() if p.requires_grad]
    loss = nn.functional.mse_loss(model(x), y)
    grads = torch.autograd.grad(loss, params)  # expect: GG503
    diagonal = [torch.zeros_like(p) for p in params]
    for _ in range(samples):
        probes = [torch.randint_like(p, 2) * 2 - 1 for p in params]
        products = probe_product(grads, params, probes)
        for total, z, hz in zip(diagonal, probes, products):
            total.add_(z * hz / samples)
    return diagonal


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 1))
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    try:
        hessian_diagonal(net, x, y)
        raise SystemExit("the probe product through gradients without history ran")
    except RuntimeError as error:
        assert "does not require grad" in str(error), error
    print("ok")
