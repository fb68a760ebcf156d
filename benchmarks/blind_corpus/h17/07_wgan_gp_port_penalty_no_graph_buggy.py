"""GG503 - gradient penalty built from autograd.grad output without create_graph=True.

A WGAN-GP critic step ported from a TensorFlow script computes the input
gradients with torch.autograd.grad(...) but leaves create_graph at its default
(False).  The returned gradients are plain tensors with no history, so the
penalty term added to the critic loss contributes nothing to the critic's
parameter gradients: training silently runs as plain WGAN (no error).
Observable: the critic gradients with LAMBDA=10 equal those with LAMBDA=0.

Modelled on: https://github.com/igul222/improved_wgan_training/issues/18
"""
import copy

import torch
import torch.nn as nn
from torch import autograd

DIM = 32
LAMBDA = 10.0
CRITIC_ITERS = 3
BATCH_SIZE = 16
ITERS = 3
NOISE_DIM = 8
DATA_DIM = 2


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(NOISE_DIM, DIM), nn.ReLU(True),
                                  nn.Linear(DIM, DIM), nn.ReLU(True), nn.Linear(DIM, DATA_DIM))

    def forward(self, noise):
        return self.main(noise)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(DATA_DIM, DIM), nn.Tanh(),
                                  nn.Linear(DIM, DIM), nn.Tanh(), nn.Linear(DIM, 1))

    def forward(self, x):
        return self.main(x).view(-1)


def inf_train_gen():
    centers = torch.tensor([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]]) * 2
    while True:
        idx = torch.randint(0, 4, (BATCH_SIZE,))
        yield centers[idx] + 0.05 * torch.randn(BATCH_SIZE, DATA_DIM)


def calc_gradient_penalty(netD, real_data, fake_data):
    alpha = torch.rand(real_data.size(0), 1).expand_as(real_data)
    interpolates = alpha * real_data + (1 - alpha) * fake_data
    interpolates.requires_grad_(True)
    disc_interpolates = netD(interpolates)
    gradients = autograd.grad(outputs=disc_interpolates, inputs=interpolates,  # bug: GG503
                              grad_outputs=torch.ones_like(disc_interpolates),
                              retain_graph=True, only_inputs=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA


def critic_loss(netD, netG, real_data, with_penalty=True):
    noise = torch.randn(real_data.size(0), NOISE_DIM)
    fake = netG(noise).detach()
    D_real = netD(real_data).mean()
    D_fake = netD(fake).mean()
    cost = D_fake - D_real
    if with_penalty:
        cost = cost + calc_gradient_penalty(netD, real_data, fake)
    return cost


def penalty_reaches_critic(netD, netG, real_data):
    """Compare critic grads of the full loss and of the loss without the penalty."""
    state = torch.random.get_rng_state()
    netD.zero_grad()
    critic_loss(netD, netG, real_data, True).backward()
    full = [p.grad.clone() for p in netD.parameters()]
    torch.random.set_rng_state(state)
    netD.zero_grad()
    critic_loss(netD, netG, real_data, False).backward()
    plain = [p.grad.clone() for p in netD.parameters()]
    netD.zero_grad()
    return any(not torch.allclose(a, b) for a, b in zip(full, plain))


def train():
    netG, netD = Generator(), Discriminator()
    optD = torch.optim.Adam(netD.parameters(), lr=1e-4, betas=(0.5, 0.9))
    optG = torch.optim.Adam(netG.parameters(), lr=1e-4, betas=(0.5, 0.9))
    data = inf_train_gen()
    for iteration in range(ITERS):
        for p in netD.parameters():
            p.requires_grad_(True)
        for _ in range(CRITIC_ITERS):
            real = next(data)
            netD.zero_grad()
            D_cost = critic_loss(netD, netG, real)
            D_cost.backward()
            optD.step()
        for p in netD.parameters():
            p.requires_grad_(False)
        netG.zero_grad()
        G_cost = -netD(netG(torch.randn(BATCH_SIZE, NOISE_DIM))).mean()
        G_cost.backward()
        optG.step()
        print(f"iter {iteration}: D_cost {D_cost.item():.4f} G_cost {G_cost.item():.4f}")
    for p in netD.parameters():
        p.requires_grad_(True)
    return netD, netG, next(data)


if __name__ == "__main__":
    torch.manual_seed(0)
    netD, netG, real = train()
    if not penalty_reaches_critic(netD, netG, real):
        print("BUGGY: gradient penalty has no effect on the critic gradients")
    else:
        raise SystemExit("NO BUG")
