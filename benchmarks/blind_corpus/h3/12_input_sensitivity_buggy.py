"""GG403 - .grad of a non-leaf tensor read (it is None without retain_grad()).

A sensitivity analysis of a fitted 1-D regressor builds its evaluation grid
as torch.linspace(..., requires_grad=True).view(-1, 1).  The view() makes
the grid a non-leaf, so after output.sum().backward() its .grad is None
and the analysis code fails:
AttributeError: 'NoneType' object has no attribute 'squeeze'
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
    grid = torch.linspace(lo, hi, n, requires_grad=True).view(-1, 1)
    pred = model(grid)
    pred.sum().backward()
    dydx = grid.grad.squeeze(1)  # bug: GG403
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
    try:
        main()
    except AttributeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
