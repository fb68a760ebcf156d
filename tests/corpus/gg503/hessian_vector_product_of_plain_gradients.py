"""A Hessian-vector product taken through gradients that have no history (GG503).

Modelled on https://github.com/amirgholami/PyHessian/issues/12: the Hessian-vector
product `torch.autograd.grad(gradsH, params, grad_outputs=v)` fails with "element 0 of
variables does not require grad" because the first-order gradients were computed without
`create_graph=True`. The helper below follows that shape: first-order gradients of every
parameter in one call, then the product through the whole tuple of gradients, the list of
parameters and probe vectors held in names. The look-alike passes `create_graph=True`, and
another keeps the first-order gradients only to measure their norm.
"""

import torch
from torch import nn


def hessian_vector_product(model, x, y):
    params = [p for p in model.parameters() if p.requires_grad]
    loss = nn.functional.mse_loss(model(x), y)
    grads = torch.autograd.grad(loss, params)  # expect: GG503
    probes = [torch.randn_like(p) for p in params]
    return torch.autograd.grad(grads, params, grad_outputs=probes)


def hessian_vector_product_kept(model, x, y):
    params = [p for p in model.parameters() if p.requires_grad]
    loss = nn.functional.mse_loss(model(x), y)
    grads = torch.autograd.grad(loss, params, create_graph=True)
    probes = [torch.randn_like(p) for p in params]
    return torch.autograd.grad(grads, params, grad_outputs=probes)


def gradient_norm(model, x, y):
    params = list(model.parameters())
    loss = nn.functional.mse_loss(model(x), y)
    grads = torch.autograd.grad(loss, params)
    return torch.sqrt(sum(g.pow(2).sum() for g in grads))


if __name__ == "__main__":
    net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    x, y = torch.randn(6, 3), torch.randn(6, 1)
    try:
        hessian_vector_product(net, x, y)
        raise SystemExit("the product through gradients without history ran")
    except RuntimeError as error:
        assert "does not require grad" in str(error), error
    assert len(hessian_vector_product_kept(net, x, y)) == 4
    assert gradient_norm(net, x, y) > 0
    print("ok")
