"""GG503 look-alike (correct code) - autograd.grad used correctly twice.

A small GAN discriminator step with an R1 penalty.  The penalty's
``torch.autograd.grad`` call passes ``create_graph=True`` (spread over several
lines, with the keyword arguments coming from a dict), so the penalty is
differentiable w.r.t. the discriminator weights.  A second ``autograd.grad``
call without ``create_graph`` computes the generator-gradient norm for logging
only: its result is turned into a Python float and never enters a loss.

Modelled on: https://github.com/podgorskiy/ALAE/issues/55 (R1 penalty via
autograd.grad with create_graph=True)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

HP = {"z": 8, "x": 4, "h": 32, "gamma": 5.0, "steps": 4, "batch": 16}
GRAD_KW = {"create_graph": True, "retain_graph": True}


def make_nets():
    G = nn.Sequential(nn.Linear(HP["z"], HP["h"]), nn.LeakyReLU(0.2), nn.Linear(HP["h"], HP["x"]))
    D = nn.Sequential(nn.Linear(HP["x"], HP["h"]), nn.LeakyReLU(0.2), nn.Linear(HP["h"], 1))
    return G, D


def r1_penalty(D, real):
    real = real.detach().requires_grad_(True)
    out = D(real).sum()
    grad_real, = torch.autograd.grad(
        outputs=out,
        inputs=real,
        **GRAD_KW,
    )
    return grad_real.pow(2).sum(dim=1).mean()


def generator_grad_norm(G, g_loss):
    grads = torch.autograd.grad(g_loss, list(G.parameters()), retain_graph=True)
    return torch.sqrt(sum(g.pow(2).sum() for g in grads)).item()


def main():
    torch.manual_seed(0)
    G, D = make_nets()
    optG = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.0, 0.99))
    optD = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.0, 0.99))
    log = []
    for step in range(HP["steps"]):
        real = torch.randn(HP["batch"], HP["x"]) * 0.5 + 1.0
        fake = G(torch.randn(HP["batch"], HP["z"]))
        penalty = r1_penalty(D, real)
        d_loss = F.softplus(D(fake.detach())).mean() + F.softplus(-D(real)).mean() + HP["gamma"] / 2 * penalty
        optD.zero_grad()
        d_loss.backward()
        optD.step()
        g_loss = F.softplus(-D(fake)).mean()
        gnorm = generator_grad_norm(G, g_loss)
        optG.zero_grad()
        g_loss.backward()
        optG.step()
        log.append({"d": d_loss.item(), "g": g_loss.item(), "r1": penalty.item(), "g_gnorm": gnorm})
        print(f"step {step}: " + " ".join(f"{k}={v:.4f}" for k, v in log[-1].items()))
    assert penalty.grad_fn is not None


if __name__ == "__main__":
    main()
    print("OK")
