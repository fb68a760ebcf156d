"""Look-alike: `torch.autograd.grad(..., **GRAD_OPTIONS)` whose unpacked options hold
`create_graph=True`.

An R1 penalty for a discriminator computes the gradient of its output with respect to the
real batch, passing its options from a module-level dict. The gradient has history (the
dict sets `create_graph=True`), so the penalty trains the discriminator (checked with torch
2.13.0). A call whose keywords are unpacked from a dict is never read as "no
create_graph": silent, even though the dict and the penalty's weight are known here.
Modelled on the R1 regularisation of StyleGAN-like trainers, written anew for this corpus.
"""

import torch
from torch import nn

SETTINGS = {"gamma": 10.0, "steps": 2}
GRAD_OPTIONS = {"create_graph": True, "retain_graph": True}


def r1_penalty(critic, real):
    real = real.detach().requires_grad_(True)
    score = critic(real).sum()
    (gradient,) = torch.autograd.grad(outputs=score, inputs=real, **GRAD_OPTIONS)
    return gradient.pow(2).sum(dim=1).mean()


def main():
    critic = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    optimizer = torch.optim.SGD(critic.parameters(), lr=0.01)
    for _ in range(SETTINGS["steps"]):
        real = torch.randn(8, 4)
        optimizer.zero_grad()
        penalty = r1_penalty(critic, real)
        loss = nn.functional.softplus(-critic(real)).mean() + SETTINGS["gamma"] / 2 * penalty
        loss.backward()
        optimizer.step()
    assert penalty.requires_grad


if __name__ == "__main__":
    main()
