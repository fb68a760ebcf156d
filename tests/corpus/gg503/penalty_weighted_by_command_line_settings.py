"""A gradient penalty without create_graph, weighted by command-line settings (GG503).

`gradient_penalty` takes the gradient of the critic's output with respect to its input with
`torch.autograd.grad(...)` but without `create_graph=True`, so the gradient has no history.
`train(args, ...)` multiplies the penalty by `args.penalty_weight` and
`args.penalty_every` (parsed with argparse) and backpropagates it: "element 0 of tensors
does not require grad" (checked with torch 2.13.0 below). Whatever the command line holds,
an argument with a builtin `type` and a literal default is a Python number, so the product
has no history either.

Look-alikes: the penalty computed with `create_graph=True`; and a second parser whose scale
argument is converted by a function of the file (`type=as_tensor`, a learnable scale that
requires grad): the product then has history and backward runs.

Modelled on the StyleGAN2 path-length regularisation case of the team's blind corpus (h14),
whose settings come from argparse as in rosinality/stylegan2-pytorch's train.py.
"""

import argparse

import torch
from torch import nn


def parse(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--penalty-weight", type=float, default=10.0)
    parser.add_argument("--penalty_every", type=int, default=1)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--fast", action="store_true")
    return parser.parse_args(argv)


def as_tensor(text):
    return torch.tensor(float(text), requires_grad=True)


def parse_scaled(argv):
    scaled = argparse.ArgumentParser()
    scaled.add_argument("--scale", type=as_tensor, default="2.0")
    return scaled.parse_args(argv)


def train_scaled(args, critic):
    x = torch.randn(4, 3).requires_grad_(True)
    (grad,) = torch.autograd.grad(critic(x).sum(), x)
    weighted = args.scale * grad.pow(2).sum()
    weighted.backward()
    return args.scale.grad


def gradient_penalty(critic, x, create_graph):
    x = x.clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(critic(x).sum(), x, create_graph=create_graph)
    return grad.pow(2).sum(1).mean()


def train(args, critic, create_graph):
    optimizer = torch.optim.SGD(critic.parameters(), lr=0.01)
    for _ in range(args.steps):
        penalty = gradient_penalty(critic, torch.randn(4, 3), create_graph)
        weighted = args.penalty_weight * args.penalty_every * penalty
        optimizer.zero_grad()
        weighted.backward()
        optimizer.step()


def train_no_graph(args, critic):
    optimizer = torch.optim.SGD(critic.parameters(), lr=0.01)
    for _ in range(args.steps):
        x = torch.randn(4, 3).requires_grad_(True)
        (grad,) = torch.autograd.grad(critic(x).sum(), x)  # expect: GG503
        weighted = args.penalty_weight * grad.pow(2).sum()
        optimizer.zero_grad()
        weighted.backward()
        optimizer.step()


def main():
    args = parse([])
    critic = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    train(args, critic, create_graph=True)
    assert train_scaled(parse_scaled([]), critic) is not None
    try:
        train_no_graph(args, critic)
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("expected the penalty to have no graph")


if __name__ == "__main__":
    main()
