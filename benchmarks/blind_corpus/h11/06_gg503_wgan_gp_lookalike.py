"""GG503 look-alike - autograd.grad used correctly.

Correct code: a WGAN-GP critic step. The gradient penalty uses torch.autograd.grad
with create_graph=True, so it is differentiable. A second autograd.grad call (without
create_graph) only feeds a logged scalar (.item()) and is never added to a loss.
Runs cleanly.
"""
import torch
import torch.nn as nn
from torch import autograd

OPT = {"z_dim": 8, "x_dim": 16, "lambda_gp": 10.0, "n_critic": 2, "iters": 3, "batch": 24, "lr": 1e-4}


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
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d_interp = critic(interp)
    grads = autograd.grad(outputs=d_interp, inputs=interp,
                          grad_outputs=torch.ones_like(d_interp),
                          create_graph=True, retain_graph=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


def critic_input_grad_norm(critic, real):
    # diagnostic only: the value is logged, never differentiated
    x = real.clone().requires_grad_(True)
    g = autograd.grad(critic(x).sum(), x)[0]
    return g.norm(dim=1).mean().item()


def train(gen, critic, opt_g, opt_c, opt):
    logs = []
    for it in range(opt["iters"]):
        for _ in range(opt["n_critic"]):
            real = torch.randn(opt["batch"], opt["x_dim"]) * 0.5 + 1.0
            fake = gen(torch.randn(opt["batch"], opt["z_dim"])).detach()
            opt_c.zero_grad()
            gp = gradient_penalty(critic, real, fake)
            loss_c = critic(fake).mean() - critic(real).mean() + opt["lambda_gp"] * gp
            loss_c.backward()
            opt_c.step()
        opt_g.zero_grad()
        loss_g = -critic(gen(torch.randn(opt["batch"], opt["z_dim"]))).mean()
        loss_g.backward()
        opt_g.step()
        logs.append({"loss_c": loss_c.item(), "gp": gp.item(), "gnorm": critic_input_grad_norm(critic, real)})
        print(f"iter {it}: " + ", ".join(f"{k}={v:.3f}" for k, v in logs[-1].items()))
    return logs


def main():
    torch.manual_seed(0)
    gen, critic = Generator(OPT["z_dim"], OPT["x_dim"]), Critic(OPT["x_dim"])
    opt_g = torch.optim.Adam(gen.parameters(), lr=OPT["lr"], betas=(0.5, 0.9))
    opt_c = torch.optim.Adam(critic.parameters(), lr=OPT["lr"], betas=(0.5, 0.9))
    # sanity: the penalty really reaches the critic's weights
    real, fake = torch.randn(4, OPT["x_dim"]), torch.randn(4, OPT["x_dim"])
    gp = gradient_penalty(critic, real, fake)
    g = autograd.grad(gp, list(critic.parameters()), allow_unused=True)
    assert any(t is not None and t.abs().sum() > 0 for t in g)
    train(gen, critic, opt_g, opt_c, OPT)


if __name__ == "__main__":
    main()
    print("OK")
