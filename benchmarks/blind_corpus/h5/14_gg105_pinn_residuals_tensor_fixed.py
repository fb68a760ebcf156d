"""Category GG105 -- torch.tensor(...) of tensors with history cuts the graph.
Status: fixed -- the loss terms are combined with torch.stack.
A physics-informed network for u'' = -pi^2 sin(pi x) on [0, 1] with u(0)=u(1)=0.
The PDE residual loss and the two boundary losses are collected in a list and turned
into a vector with `torch.tensor(...)` so that per-term weights can be applied.  The
vector is a detached copy; the training step's backward() raises
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
Modelled on: https://github.com/lululxvi/deepxde/pull/1318
"""
import math
import sys

import torch
import torch.nn as nn


class PINN(nn.Module):
    def __init__(self, width=20, depth=3):
        super().__init__()
        layers, d = [], 1
        for _ in range(depth):
            layers += [nn.Linear(d, width), nn.Tanh()]
            d = width
        layers.append(nn.Linear(d, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def pde_residual(model, x):
    x = x.clone().requires_grad_(True)
    u = model(x)
    du = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
    d2u = torch.autograd.grad(du, x, torch.ones_like(du), create_graph=True)[0]
    return d2u + math.pi ** 2 * torch.sin(math.pi * x)


class Problem:
    def __init__(self, n_col=32, loss_weights=(1.0, 10.0, 10.0)):
        self.x_col = torch.rand(n_col, 1)
        self.x_bc = [torch.zeros(1, 1), torch.ones(1, 1)]
        self.loss_weights = torch.tensor(loss_weights)

    def losses(self, model):
        terms = [pde_residual(model, self.x_col).pow(2).mean()]
        terms += [model(xb).pow(2).mean() for xb in self.x_bc]
        return torch.stack(terms)  # fixed: GG105


def train(model, problem, iterations=5, lr=1e-3):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.99)
    for it in range(iterations):
        optimizer.zero_grad()
        losses = problem.losses(model)
        total = (problem.loss_weights * losses).sum()
        total.backward()
        optimizer.step()
        scheduler.step()
        print(f"it {it}: total={total.item():.4e} terms={[round(v, 4) for v in losses.tolist()]}")
    return model


def main():
    torch.manual_seed(0)
    model = train(PINN(), Problem())
    x = torch.linspace(0, 1, 5).unsqueeze(1)
    with torch.no_grad():
        err = (model(x) - torch.sin(math.pi * x)).abs().max().item()
    print(f"max abs error {err:.3f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
