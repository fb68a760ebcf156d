"""GG202 through two helpers: one trains the discriminator on an undetached generated
batch and returns it, the other trains the generator on whatever batch it is handed.

`critic_update()` backpropagates `loss_d` through `netD(fake)` without `.detach()`, so the
generator's saved tensors are freed when it returns `fake`. The loop then hands that batch
to `generator_update()`, whose `backward()` runs through the generator's graph again:
"Trying to backward through the graph a second time" (tried with torch 2.13.0). Seen from
the loop, the first helper freed the graph of its result and the second backpropagates
through its argument; the finding is on the first backward.

Look-alikes that stay silent: the critic scores `fake.detach()`; the loop hands the
generator step a batch generated anew.
"""

import torch
from torch import nn

mse = nn.MSELoss()


def critic_update(critic, generator, real, opt_c):
    fake = generator(torch.randn(real.size(0), 6))
    opt_c.zero_grad()
    loss_c = mse(critic(real), torch.ones(real.size(0), 1))
    loss_c = loss_c + mse(critic(fake), torch.zeros(real.size(0), 1))
    loss_c.backward()  # expect: GG202
    opt_c.step()
    return fake


def detached_critic_update(critic, generator, real, opt_c):
    fake = generator(torch.randn(real.size(0), 6))
    opt_c.zero_grad()
    mse(critic(fake.detach()), torch.zeros(real.size(0), 1)).backward()
    opt_c.step()
    return fake


def generator_update(critic, fake, opt_g):
    opt_g.zero_grad()
    loss_g = mse(critic(fake), torch.ones(fake.size(0), 1))
    loss_g.backward()
    opt_g.step()
    return loss_g.item()


def models():
    generator = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 3))
    critic = nn.Sequential(nn.Linear(3, 12), nn.ReLU(), nn.Linear(12, 1))
    opt_g = torch.optim.SGD(generator.parameters(), lr=0.01)
    opt_c = torch.optim.SGD(critic.parameters(), lr=0.01)
    return generator, critic, opt_g, opt_c


def train_buggy(batches):
    generator, critic, opt_g, opt_c = models()
    for real in batches:
        fake = critic_update(critic, generator, real, opt_c)
        generator_update(critic, fake, opt_g)


def train_look_alikes(batches):
    generator, critic, opt_g, opt_c = models()
    for real in batches:
        fake = detached_critic_update(critic, generator, real, opt_c)
        generator_update(critic, fake, opt_g)
        critic_update(critic, generator, real, opt_c)
        fresh = generator(torch.randn(real.size(0), 6))
        generator_update(critic, fresh, opt_g)
