"""A GAN built from a plain settings class whose generator loss is computed on a detached
fake batch, so only the critic is reached.

`Hyper` holds only numbers; `run` builds both networks from it and hands them to `fit`,
which asks `make_optimizer` for the generator's optimizer. In the generator's update the
fake batch is detached before the critic sees it, so `g_loss.backward()` fills the
critic's gradients only: `gen_opt.step()` applies nothing and the generator keeps its first
weights (checked with torch 2.13.0: `__main__` exits with an error). `run` returns the
generator after training, without its optimizer.

The same mistake as https://github.com/wangle53/CSA-CDGAN/issues/5 (generator weights
never change in a change-detection GAN), written anew for this corpus.
"""

import torch
from torch import nn


class Hyper:
    """Settings of the run."""

    noise = 4
    width = 16
    lr = 1e-2
    betas = (0.5, 0.999)
    steps = 5


class Generator(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(hp.noise, hp.width), nn.Tanh(), nn.Linear(hp.width, 2))

    def forward(self, z):
        return self.body(z)


class Critic(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, hp.width), nn.LeakyReLU(0.2), nn.Linear(hp.width, 1))

    def forward(self, x):
        return self.body(x)


def make_optimizer(net, hp):
    return torch.optim.Adam(net.parameters(), lr=hp.lr, betas=hp.betas)


def fit(hp, gen, critic):
    gen_opt = make_optimizer(gen, hp)  # expect: GG608
    critic_opt = torch.optim.Adam(critic.parameters(), lr=hp.lr, betas=hp.betas)
    bce = nn.BCEWithLogitsLoss()
    ones, zeros = torch.ones(8, 1), torch.zeros(8, 1)
    for _ in range(hp.steps):
        real = torch.randn(8, 2) + 2.0
        fake = gen(torch.randn(8, hp.noise))
        critic_opt.zero_grad()
        c_loss = bce(critic(real), ones) + bce(critic(fake.detach()), zeros)
        c_loss.backward()
        critic_opt.step()
        gen_opt.zero_grad()
        g_loss = bce(critic(fake.detach()), ones)
        g_loss.backward()
        gen_opt.step()


def run():
    hp = Hyper()
    torch.manual_seed(0)
    gen, critic = Generator(hp), Critic(hp)
    before = [p.detach().clone() for p in gen.parameters()]
    fit(hp, gen, critic)
    return before, gen


if __name__ == "__main__":
    before, gen = run()
    if all(torch.equal(a, b) for a, b in zip(before, gen.parameters())):
        raise SystemExit("the generator never trained: g_loss does not reach it")
