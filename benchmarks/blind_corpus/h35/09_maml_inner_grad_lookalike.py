"""Input-saliency and gradient-norm monitoring for a small regressor.

Modelled on: https://github.com/dragen1860/MAML-Pytorch/issues/59 (counterpart)

Look-alike: torch.autograd.grad is called without create_graph, but its
results are only inspected (saliency maps, gradient norms for logging) and
never differentiated again or folded into a loss. The gradient penalty
that IS added to the loss uses create_graph=True.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Regressor(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x)


def saliency(model, x):
    x = x.clone().requires_grad_(True)
    out = model(x).sum()
    (g,) = torch.autograd.grad(out, x)
    return g.abs()


def grad_norm_for_logging(model, x, y):
    loss = F.mse_loss(model(x), y)
    grads = torch.autograd.grad(loss, list(model.parameters()))
    return torch.sqrt(sum((g ** 2).sum() for g in grads)).item()


def penalised_loss(model, x, y, lam=0.1):
    x = x.clone().requires_grad_(True)
    pred = model(x)
    (gx,) = torch.autograd.grad(pred.sum(), x, create_graph=True)
    return F.mse_loss(pred, y) + lam * (gx.norm(dim=1) ** 2).mean()


def train(model, steps=3):
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    g = torch.Generator().manual_seed(0)
    for _ in range(steps):
        x = torch.randn(8, 2, generator=g)
        y = x.sum(1, keepdim=True)
        opt.zero_grad()
        penalised_loss(model, x, y).backward()
        opt.step()
        grad_norm_for_logging(model, x, y)
    return saliency(model, torch.randn(4, 2, generator=g))


if __name__ == "__main__":
    torch.manual_seed(0)
    sal = train(Regressor())
    assert sal.shape == (4, 2)
    print("OK")
