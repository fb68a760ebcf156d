"""GG202 across a function boundary: a GAN's discriminator step lives in a helper that
returns the generated batch, and the generator step backpropagates through that batch.

`discriminator_step()` scores `fake` without `.detach()`, so `loss_d.backward()` runs
through the generator too and frees the tensors the generator's layers saved. It returns
`fake`; the caller's `loss_g.backward()` goes through the same generator graph again and
raises "Trying to backward through the graph a second time" (tried with torch 2.13.0).
The finding is on the first backward, inside the helper, which is where the fix goes
(score `fake.detach()` there, the usual DCGAN step).

Look-alikes that stay silent: the helper scores `fake.detach()`; it keeps the graph
(`retain_graph=True`); it steps on one path only; it returns a batch generated anew after
its backward; and it returns a pair whose second part the caller backpropagates through,
which no backward freed.
"""

import torch
from torch import nn

bce = nn.BCEWithLogitsLoss()


def discriminator_step(netD, netG, real, opt_d):
    fake = netG(torch.randn(real.size(0), 8))
    opt_d.zero_grad()
    loss_d = bce(netD(real), torch.ones(real.size(0), 1))
    loss_d = loss_d + bce(netD(fake), torch.zeros(real.size(0), 1))
    loss_d.backward()  # expect: GG202
    opt_d.step()
    return fake


def detached_step(netD, netG, real, opt_d):
    fake = netG(torch.randn(real.size(0), 8))
    opt_d.zero_grad()
    loss_d = bce(netD(fake.detach()), torch.zeros(real.size(0), 1))
    loss_d.backward()
    opt_d.step()
    return fake


def retained_step(netD, netG, real, opt_d):
    fake = netG(torch.randn(real.size(0), 8))
    opt_d.zero_grad()
    bce(netD(fake), torch.zeros(real.size(0), 1)).backward(retain_graph=True)
    opt_d.step()
    return fake


def sometimes_step(netD, netG, real, opt_d, train_d):
    fake = netG(torch.randn(real.size(0), 8))
    if train_d:
        opt_d.zero_grad()
        bce(netD(fake), torch.zeros(real.size(0), 1)).backward()
        opt_d.step()
    return fake


def regenerated_step(netD, netG, real, opt_d):
    fake = netG(torch.randn(real.size(0), 8))
    opt_d.zero_grad()
    bce(netD(fake), torch.zeros(real.size(0), 1)).backward()
    opt_d.step()
    fake = netG(torch.randn(real.size(0), 8))
    return fake


def paired_step(netD, netG, real, opt_d):
    fake = netG(torch.randn(real.size(0), 8))
    opt_d.zero_grad()
    bce(netD(fake), torch.zeros(real.size(0), 1)).backward()
    opt_d.step()
    fresh = netG(torch.randn(real.size(0), 8))
    return fake, fresh


def run_buggy(batches):
    netG = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))
    netD = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    opt_g = torch.optim.Adam(netG.parameters(), lr=2e-4)
    opt_d = torch.optim.Adam(netD.parameters(), lr=2e-4)
    for real in batches:
        fake = discriminator_step(netD, netG, real, opt_d)
        opt_g.zero_grad()
        loss_g = bce(netD(fake), torch.ones(real.size(0), 1))
        loss_g.backward()
        opt_g.step()


def run_look_alikes(batches):
    netG = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))
    netD = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    opt_g = torch.optim.Adam(netG.parameters(), lr=2e-4)
    opt_d = torch.optim.Adam(netD.parameters(), lr=2e-4)
    for real in batches:
        ones = torch.ones(real.size(0), 1)
        fake = detached_step(netD, netG, real, opt_d)
        opt_g.zero_grad()
        bce(netD(fake), ones).backward()
        opt_g.step()
        fake = retained_step(netD, netG, real, opt_d)
        opt_g.zero_grad()
        bce(netD(fake), ones).backward()
        opt_g.step()
        fake = sometimes_step(netD, netG, real, opt_d, False)
        opt_g.zero_grad()
        bce(netD(fake), ones).backward()
        opt_g.step()
        fake = regenerated_step(netD, netG, real, opt_d)
        opt_g.zero_grad()
        bce(netD(fake), ones).backward()
        opt_g.step()
        _, fresh = paired_step(netD, netG, real, opt_d)
        opt_g.zero_grad()
        bce(netD(fresh), ones).backward()
        opt_g.step()
