"""GG503 look-alike - autograd.grad twice, used correctly.

A WGAN-GP critic step computes the gradient penalty with
``torch.autograd.grad(..., create_graph=True)`` and adds it to the critic loss
(correct: the penalty stays differentiable).  A monitoring helper also calls
``torch.autograd.grad`` *without* create_graph, but only to log a gradient norm
as a Python float; that result is never differentiated nor added to a loss.
Both look like the "grad of grad without create_graph" mistake; neither is.

Modelled on: https://github.com/kozistr/pytorch_optimizer/issues/193 (correct variant)
"""
import torch
import torch.nn as nn

CFG = dict(z_dim=8, x_dim=16, batch=16, n_critic=2, gp_lambda=10.0, iters=3, lr=1e-4)


class Generator(nn.Module):
    def __init__(self, z_dim, x_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, 32), nn.ReLU(), nn.Linear(32, x_dim))

    def forward(self, z):
        return self.net(z)


class Critic(nn.Module):
    def __init__(self, x_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(x_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x)


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.size(0), 1)
    inter = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    score = critic(inter)
    grads = torch.autograd.grad(score, inter, grad_outputs=torch.ones_like(score),
                                create_graph=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


def grad_norm_for_logging(loss, module):
    grads = torch.autograd.grad(loss, list(module.parameters()), retain_graph=True)
    return float(torch.sqrt(sum(g.pow(2).sum() for g in grads)))


def train(cfg):
    torch.manual_seed(0)
    G, D = Generator(cfg["z_dim"], cfg["x_dim"]), Critic(cfg["x_dim"])
    opt_g = torch.optim.Adam(G.parameters(), lr=cfg["lr"], betas=(0.5, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=cfg["lr"], betas=(0.5, 0.9))
    for it in range(cfg["iters"]):
        for _ in range(cfg["n_critic"]):
            real = torch.randn(cfg["batch"], cfg["x_dim"]) + 2.0
            fake = G(torch.randn(cfg["batch"], cfg["z_dim"])).detach()
            gp = gradient_penalty(D, real, fake)
            d_loss = D(fake).mean() - D(real).mean() + cfg["gp_lambda"] * gp
            d_norm = grad_norm_for_logging(d_loss, D)
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
        g_loss = -D(G(torch.randn(cfg["batch"], cfg["z_dim"]))).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
        print(f"it {it}: d_loss={d_loss.item():.3f} gp={gp.item():.3f} |gD|={d_norm:.3f} g_loss={g_loss.item():.3f}")
    # the penalty really is differentiable w.r.t. the critic
    assert gp.requires_grad
    return G, D


if __name__ == "__main__":
    train(CFG)
    print("OK")
