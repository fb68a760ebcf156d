"""Physics-informed fit of a damped oscillator on a time grid built with arange.

Modelled on: https://github.com/pytorch/pytorch/issues/14275

The reporter wrote `Variable(t.arange(0, 3), requires_grad=True)` expecting a
float tensor (the default tensor type) and got "Only Tensors of floating point
dtype can require gradients": torch.arange with integer bounds returns an
int64 tensor, like numpy.  Here the collocation grid of a physics-informed
network is built the same way, because the residual needs d(u)/d(t) and the
grid must therefore require grad.
"""
import argparse

import torch
import torch.nn as nn

torch.set_num_threads(1)


class PINN(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(),
                                 nn.Linear(hidden, hidden), nn.Tanh(),
                                 nn.Linear(hidden, 1))

    def forward(self, t):
        return self.net(t.unsqueeze(-1)).squeeze(-1)


def make_grid(n_points):
    return torch.arange(0, n_points, requires_grad=True)  # bug: GG402


def residual(model, t_idx, dt, omega, zeta):
    t = t_idx * dt
    u = model(t)
    du = torch.autograd.grad(u.sum(), t_idx, create_graph=True)[0] / dt
    d2u = torch.autograd.grad(du.sum(), t_idx, create_graph=True)[0] / dt
    return d2u + 2 * zeta * omega * du + omega ** 2 * u, u


def initial_condition_loss(model):
    t0 = torch.zeros(1, requires_grad=True)
    u0 = model(t0)
    du0 = torch.autograd.grad(u0.sum(), t0, create_graph=True)[0]
    return (u0 - 1.0).pow(2).sum() + du0.pow(2).sum()


def fit(args):
    model = PINN(args.hidden)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    t_idx = make_grid(args.n_points)
    for _ in range(args.iters):
        optimizer.zero_grad()
        res, _ = residual(model, t_idx, args.dt, args.omega, args.zeta)
        loss = res.pow(2).mean() + initial_condition_loss(model)
        loss.backward()
        optimizer.step()
    return loss.item()


def parse(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n-points", type=int, default=20)
    p.add_argument("--dt", type=float, default=0.1)
    p.add_argument("--omega", type=float, default=2.0)
    p.add_argument("--zeta", type=float, default=0.1)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--iters", type=int, default=5)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    try:
        fit(parse([]))
        print("no error")
    except RuntimeError as e:
        print(f"BUGGY: {e}")
