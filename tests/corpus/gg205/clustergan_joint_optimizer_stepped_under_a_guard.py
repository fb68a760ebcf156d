"""ClusterGAN-style step: generator and encoder share one optimizer, stepped every few
iterations inside an `if`, before the discriminator's loss backpropagates through the
generator's output again.

Modelled on eriklindernoren/PyTorch-GAN's implementations/cluster_gan/clustergan.py: the
generator/encoder loss is backpropagated with `retain_graph=True`, `optimizer_GE.step()`
changes the generator's weights, then `d_loss` (from `D_gen`, the discriminator's score of
the non-detached generated batch) backpropagates through the generator's graph, which saved
those weights: "one of the variables needed for gradient computation has been modified by an
inplace operation" on PyTorch >= 1.5. Two facts make it visible: the optimizer, built from
`itertools.chain(...)` of two modules' parameters (bound to a name first), holds both; and
the step sits in an `if` that runs once every `n_skip_iter` iterations, so the backward
after that `if` certainly follows the step on some iteration. Written from scratch.
"""

import itertools

import torch
from torch import nn

latent_dim = 4
generator = nn.Sequential(nn.Linear(latent_dim, 16), nn.ReLU(), nn.Linear(16, 8))
encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, latent_dim))
discriminator = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
ge_chain = itertools.chain(generator.parameters(), encoder.parameters())
optimizer_GE = torch.optim.Adam(ge_chain, lr=1e-4)
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=1e-4)
mse_loss = nn.MSELoss()
n_skip_iter = 1

for i in range(2):
    real_imgs = torch.randn(6, 8)
    generator.zero_grad()
    encoder.zero_grad()
    zn = torch.randn(6, latent_dim)
    gen_imgs = generator(zn)
    D_gen = discriminator(gen_imgs)
    D_real = discriminator(real_imgs)
    if i % n_skip_iter == 0:
        zn_loss = mse_loss(encoder(gen_imgs), zn)
        ge_loss = torch.mean(D_gen) + zn_loss
        ge_loss.backward(retain_graph=True)
        optimizer_GE.step()  # expect: GG205
    optimizer_D.zero_grad()
    d_loss = torch.mean(D_real) - torch.mean(D_gen)
    d_loss.backward()
    optimizer_D.step()
