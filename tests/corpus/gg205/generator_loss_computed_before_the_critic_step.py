"""GG205 without a retained graph: both GAN losses are computed first, then each is
backpropagated and stepped in turn.

`g_loss` runs through `critic(fake)`, computed before `opt_c.step()`; that call saved the
critic's weights for its backward. `c_loss.backward()` gives the critic its gradients (its
graph is another one: the critic scored `fake.detach()` and the real batch), so the step
changes those weights in place, and `g_loss.backward()` then finds them at a newer version:
"one of the variables needed for gradient computation has been modified by an inplace
operation" (tried with torch 2.13.0). No `retain_graph` is involved; the two graphs share
only the weights. The same holds for the generator's weights when a reconstruction loss is
stepped between the adversarial loss's forward and its backward.

Look-alikes that stay silent: the generator's loss computed after the critic's step (the
usual order); an optimizer stepped in between that holds only the generator, which the
second loss does not run through; a first backward that does not run through the critic,
so its optimizer has no gradient to apply; a first backward given a keyword current torch
does not know (it raises TypeError before any step).
"""

import torch
from torch import nn


def models():
    generator = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4))
    critic = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3)
    opt_c = torch.optim.Adam(critic.parameters(), lr=1e-3)
    return generator, critic, opt_g, opt_c


def both_losses_first(batches):
    generator, critic, opt_g, opt_c = models()
    for real in batches:
        fake = generator(torch.randn(real.size(0), 4))
        c_loss = critic(fake.detach()).mean() - critic(real).mean()
        g_loss = -critic(fake).mean()
        opt_c.zero_grad()
        c_loss.backward()
        opt_c.step()  # expect: GG205
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()


def reconstruction_stepped_before_the_adversarial_loss(batches):
    # The generator's weights this time: `critic(fake)` ran through `generator(...)`,
    # whose layers saved them, before the reconstruction step changed them.
    generator, critic, opt_g, opt_c = models()
    for real in batches:
        fake = generator(torch.randn(real.size(0), 4))
        recon = (generator(real) - real).pow(2).mean()
        g_loss = -critic(fake).mean()
        opt_g.zero_grad()
        recon.backward()
        opt_g.step()  # expect: GG205
        opt_c.zero_grad()
        g_loss.backward()
        opt_c.step()


def generator_loss_after_the_step(batches):
    generator, critic, opt_g, opt_c = models()
    for real in batches:
        fake = generator(torch.randn(real.size(0), 4))
        c_loss = critic(fake.detach()).mean() - critic(real).mean()
        opt_c.zero_grad()
        c_loss.backward()
        opt_c.step()
        g_loss = -critic(fake).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()


def generator_stepped_in_between(batches):
    generator, critic, opt_g, opt_c = models()
    for real in batches:
        recon = (generator(real) - real).pow(2).mean()
        c_loss = -critic(real).mean()
        opt_g.zero_grad()
        recon.backward()
        opt_g.step()
        opt_c.zero_grad()
        c_loss.backward()
        opt_c.step()


def first_backward_skips_the_critic(batches):
    generator, critic, opt_g, opt_c = models()
    for real in batches:
        recon = (generator(real) - real).pow(2).mean()
        g_loss = -critic(generator(real)).mean()
        opt_c.zero_grad()
        recon.backward()
        opt_c.step()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()


def old_keyword_first(batches):
    # The shape of a 2017 tutorial: `retain_variables=True` (torch before 0.4) raises
    # TypeError on current torch before any step runs, so the crash reported above is not
    # this script's (and in the torch that took the keyword it kept the graph).
    generator, critic, opt_g, opt_c = models()
    for real in batches:
        fake = generator(torch.randn(real.size(0), 4))
        c_loss = critic(fake).mean() - critic(real).mean()
        g_loss = -critic(fake).mean()
        opt_c.zero_grad()
        c_loss.backward(retain_variables=True)
        opt_c.step()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
