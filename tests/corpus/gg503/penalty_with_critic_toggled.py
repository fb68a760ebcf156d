"""A WGAN-GP penalty without create_graph, in a loop that toggles the critic's flags (GG503).

Modelled on https://github.com/igul222/improved_wgan_training/issues/18, about porting the
gradient penalty: `torch.autograd.grad(...)` without `create_graph=True` gives gradients
without history, so the penalty added to the critic's cost trains nothing, and no error
says so. The training loop follows the common WGAN-GP shape: the critic's parameters are
switched off (`requires_grad = False`) for the generator's step and back on for the
critic's, so what the critic computes has a history the analysis cannot be sure of. The
penalty is still a term of the sum, whatever the rest is. The look-alike passes
`create_graph=True`.
"""

import torch
from torch import autograd, nn

LAMBDA = 10.0


def gradient_penalty(critic, real, fake, create_graph=False):
    alpha = torch.rand(real.size(0), 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(mixed)
    (gradients,) = autograd.grad(  # expect: GG503
        scores, mixed, grad_outputs=torch.ones_like(scores), create_graph=create_graph
    )
    return LAMBDA * ((gradients.norm(2, dim=1) - 1) ** 2).mean()


def train(critic, generator, steps=2, create_graph=False):
    opt_c = torch.optim.Adam(critic.parameters(), lr=1e-4)
    opt_g = torch.optim.Adam(generator.parameters(), lr=1e-4)
    for _ in range(steps):
        for p in critic.parameters():
            p.requires_grad = True
        real = torch.randn(8, 2)
        fake = generator(torch.randn(8, 4)).detach()
        opt_c.zero_grad()
        cost = critic(fake).mean() - critic(real).mean()
        total = cost + gradient_penalty(critic, real, fake, create_graph)
        total.backward()
        opt_c.step()
        for p in critic.parameters():
            p.requires_grad = False
        opt_g.zero_grad()
        (-critic(generator(torch.randn(8, 4))).mean()).backward()
        opt_g.step()


def penalty_gradients(create_graph):
    """The critic's gradient from the penalty alone."""
    torch.manual_seed(0)
    critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
    real, fake = torch.randn(8, 2), torch.randn(8, 2)
    penalty = gradient_penalty(critic, real, fake, create_graph=create_graph)
    if not penalty.requires_grad:
        return None
    penalty.backward()
    return critic[0].weight.grad


if __name__ == "__main__":
    torch.manual_seed(0)
    train(nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1)), nn.Linear(4, 2))
    # The silent effect: without create_graph the penalty has no history at all.
    assert penalty_gradients(create_graph=False) is None
    assert penalty_gradients(create_graph=True) is not None
    print("the penalty trained nothing without create_graph")
