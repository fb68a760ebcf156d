"""An in-domain GAN inversion training loop that updates an encoder and a discriminator:
the encoder's optimiser is cleared every iteration, the discriminator's is not, so the
discriminator steps with gradients summed over all iterations (and with the gradients the
encoder's loss left on it). The author confirms `optimizer_D.zero_grad()` was forgotten.

Source (rewritten in our own words, structure kept): https://github.com/Hsintien-Ng/idinvert_pytorch-reproduced/issues/1
- `training_loop_encoder.py`: a function given the networks and options; per batch the
discriminator step then the encoder step.
"""

import torch
from torch import nn


def training_loop(E, G, D, batches, lr=1e-3):
    optimizer_E = torch.optim.Adam(E.parameters(), lr=lr)
    optimizer_D = torch.optim.Adam(D.parameters(), lr=lr)
    for real in batches:  # expect: GG601
        # discriminator step
        fake = G(E(real)).detach()
        loss_D = nn.functional.softplus(D(fake)).mean() + nn.functional.softplus(-D(real)).mean()
        loss_D.backward()
        optimizer_D.step()
        # encoder step
        optimizer_E.zero_grad()
        rec = G(E(real))
        loss_E = ((rec - real) ** 2).mean() + nn.functional.softplus(-D(rec)).mean()
        loss_E.backward()
        optimizer_E.step()


def training_loop_fixed(E, G, D, batches, lr=1e-3):
    optimizer_E = torch.optim.Adam(E.parameters(), lr=lr)
    optimizer_D = torch.optim.Adam(D.parameters(), lr=lr)
    for real in batches:
        optimizer_D.zero_grad()
        fake = G(E(real)).detach()
        loss_D = nn.functional.softplus(D(fake)).mean() + nn.functional.softplus(-D(real)).mean()
        loss_D.backward()
        optimizer_D.step()
        optimizer_E.zero_grad()
        rec = G(E(real))
        loss_E = ((rec - real) ** 2).mean() + nn.functional.softplus(-D(rec)).mean()
        loss_E.backward()
        optimizer_E.step()


encoder, generator, discriminator = nn.Linear(6, 3), nn.Linear(3, 6), nn.Linear(6, 1)
data = [torch.randn(4, 6) for _ in range(2)]
training_loop(encoder, generator, discriminator, data)
training_loop_fixed(encoder, generator, discriminator, data)
