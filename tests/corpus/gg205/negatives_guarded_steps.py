"""Look-alikes of a joint optimizer stepped once every few iterations inside an `if`, whose
discriminator loss then backpropagates after the `if` (see
clustergan_joint_optimizer_stepped_under_a_guard.py): here the later backward never runs
through a graph that saved the stepped weights, so every loop runs.

* the discriminator judges the generated batch detached from the generator;
* the generated batch is computed again after the guarded step.
"""

import itertools

import torch
from torch import nn


def detached_fake(steps, every):
    generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    critic = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    params = itertools.chain(generator.parameters(), encoder.parameters())
    optimizer_ge = torch.optim.Adam(params, lr=1e-4)
    optimizer_d = torch.optim.Adam(critic.parameters(), lr=1e-4)
    for i in range(steps):
        z = torch.randn(6, 4)
        fake = generator(z)
        score_fake = critic(fake.detach())
        if i % every == 0:
            ge_loss = (encoder(fake) - z).pow(2).mean() - critic(fake).mean()
            optimizer_ge.zero_grad()
            ge_loss.backward(retain_graph=True)
            optimizer_ge.step()
        optimizer_d.zero_grad()
        d_loss = critic(torch.randn(6, 8)).mean() - score_fake.mean()
        d_loss.backward()
        optimizer_d.step()


def recomputed_fake(steps, every):
    generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    critic = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    params = list(generator.parameters()) + list(encoder.parameters())
    optimizer_ge = torch.optim.Adam(params, lr=1e-4)
    optimizer_d = torch.optim.Adam(critic.parameters(), lr=1e-4)
    for i in range(steps):
        z = torch.randn(6, 4)
        fake = generator(z)
        if i % every == 0:
            ge_loss = (encoder(fake) - z).pow(2).mean()
            optimizer_ge.zero_grad()
            ge_loss.backward(retain_graph=True)
            optimizer_ge.step()
        fake = generator(z)
        optimizer_d.zero_grad()
        d_loss = critic(torch.randn(6, 8)).mean() - critic(fake).mean()
        d_loss.backward()
        optimizer_d.step()


if __name__ == "__main__":
    detached_fake(4, 2)
    recomputed_fake(4, 2)
    print("guarded steps with a detached or recomputed batch ran")
