"""Helpers handed a generator's output that backpropagate through it, in ways that leave
the caller's later backward a graph to run through."""

import torch
from torch import nn

gen = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))
disc = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
g_opt = torch.optim.Adam(gen.parameters(), lr=2e-4)
d_opt = torch.optim.Adam(disc.parameters(), lr=2e-4)


def disc_update_detached(real, fake):
    # The helper cuts the generator off itself.
    d_opt.zero_grad()
    loss = disc(fake.detach()).mean() - disc(real).mean()
    loss.backward()
    d_opt.step()


def disc_update_keeping_the_graph(real, fake):
    d_opt.zero_grad()
    loss = disc(fake).mean() - disc(real).mean()
    loss.backward(retain_graph=True)
    d_opt.step()


def disc_update_sometimes(real, fake, warmup):
    if warmup:
        return
    d_opt.zero_grad()
    (disc(fake).mean() - disc(real).mean()).backward()
    d_opt.step()


def gen_update(fake):
    g_opt.zero_grad()
    (-disc(fake).mean()).backward()
    g_opt.step()


def loop_detached_inside(steps):
    for _ in range(steps):
        fake = gen(torch.randn(8, 8))
        disc_update_detached(torch.randn(8, 4), fake)
        gen_update(fake)


def loop_detached_by_the_caller(steps):
    for _ in range(steps):
        fake = gen(torch.randn(8, 8))
        disc_update_keeping_the_graph(torch.randn(8, 4), fake.detach())
        gen_update(fake)


def loop_fresh_samples_for_the_generator(steps):
    for _ in range(steps):
        fake = gen(torch.randn(8, 8))
        disc_update_sometimes(torch.randn(8, 4), fake, warmup=False)
        fake = gen(torch.randn(8, 8))
        gen_update(fake)


def loop_generator_first(steps):
    for _ in range(steps):
        fake = gen(torch.randn(8, 8))
        gen_update(fake.detach().requires_grad_())
        disc_update_detached(torch.randn(8, 4), fake)
