"""GG403 - fixed version.

requires_grad is set after the view(), so the grid is a leaf and its .grad
is populated by backward().
"""
import sys

import torch
import torch.nn as nn


def make_data(n=128):
    x = torch.rand(n, 1) * 4 - 2
    y = torch.sin(2 * x) + 0.05 * torch.randn_like(x)
    return x, y


def fit(model, x, y, steps=60, lr=1e-2):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=20, gamma=0.5)
    for step in range(steps):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    return loss.item()


def sensitivity(model, lo=-2.0, hi=2.0, n=41):
    model.eval()
    grid = torch.linspace(lo, hi, n).view(-1, 1).requires_grad_()
    pred = model(grid)
    pred.sum().backward()
    dydx = grid.grad.squeeze(1)  # fixed: GG403
    model.zero_grad()
    return grid.detach().squeeze(1), dydx


def report(xs, dydx):
    idx = dydx.abs().argmax()
    print(f"steepest slope {dydx[idx].item():+.3f} at x={xs[idx].item():+.2f}")
    print(f"mean |dy/dx| = {dydx.abs().mean().item():.3f}")


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
    x, y = make_data()
    final = fit(model, x, y)
    print(f"final train mse {final:.4f}")
    xs, dydx = sensitivity(model)
    report(xs, dydx)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
