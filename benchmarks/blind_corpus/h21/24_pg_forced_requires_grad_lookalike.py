"""GG109 look-alike - requires_grad set by hand, but on an input leaf.

A physics-informed network needs du/dx, so the collocation points are created
and then flagged with `x.requires_grad = True` before the forward pass. That is
a leaf tensor; the residual loss keeps the graph back to the network weights,
so training changes them. Nothing is wrong here.

Modelled on: https://github.com/Kostis-S-Z/exploring_meta/issues/16
"""
import math

import torch
import torch.nn as nn


class PINN(nn.Module):
    def __init__(self, width=20):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(1, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(),
                               nn.Linear(width, 1))

    def forward(self, x):
        return self.f(x)


def residual_loss(model, x):
    u = model(x)
    du = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
    # ODE: du/dx = cos(2*pi*x), u(0) = 0
    res = du - torch.cos(2 * math.pi * x)
    bc = model(torch.zeros(1, 1))
    return (res ** 2).mean() + (bc ** 2).mean()


def main():
    torch.manual_seed(0)
    model = PINN()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    w0 = model.f[0].weight.detach().clone()
    for it in range(5):
        x = torch.rand(32, 1)
        x.requires_grad = True
        loss = residual_loss(model, x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"iter {it}: residual {loss.item():.4f}")
    assert not torch.equal(w0, model.f[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
