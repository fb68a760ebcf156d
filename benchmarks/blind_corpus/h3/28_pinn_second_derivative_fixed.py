"""GG503 - fixed version.

The first derivative is taken with create_graph=True, so du/dx keeps a
graph and can be differentiated again (and trained through).
"""
import math
import sys

import torch
import torch.nn as nn


class PINN(nn.Module):
    def __init__(self, width=32, depth=3):
        super().__init__()
        layers, d = [], 1
        for _ in range(depth):
            layers += [nn.Linear(d, width), nn.Tanh()]
            d = width
        layers.append(nn.Linear(d, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def derivatives(model, x):
    u = model(x)
    du = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True)[0]  # fixed: GG503
    d2u = torch.autograd.grad(du, x, grad_outputs=torch.ones_like(du), create_graph=True)[0]
    return u, du, d2u


def pinn_losses(model, n_colloc=64):
    x = (torch.rand(n_colloc, 1) * math.pi).requires_grad_(True)
    u, du, d2u = derivatives(model, x)
    residual = d2u + u
    x0 = torch.zeros(1, 1, requires_grad=True)
    u0, du0, _ = derivatives(model, x0)
    return {
        "pde": residual.pow(2).mean(),
        "ic": u0.pow(2).mean() + (du0 - 1).pow(2).mean(),
    }


def train(model, steps=20, lr=1e-2):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    for step in range(steps):
        losses = pinn_losses(model)
        loss = losses["pde"] + 10.0 * losses["ic"]
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 5 == 0:
            print(f"step {step}: pde={losses['pde'].item():.4e} ic={losses['ic'].item():.4e}")
    return model


def main():
    torch.manual_seed(0)
    model = train(PINN())
    xs = torch.linspace(0, math.pi, 5).view(-1, 1)
    with torch.no_grad():
        err = (model(xs) - torch.sin(xs)).abs().max().item()
    print(f"max |u - sin| on grid: {err:.3f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
