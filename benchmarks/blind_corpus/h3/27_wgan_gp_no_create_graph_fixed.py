"""GG503 - fixed version.

The gradient penalty is computed with create_graph=True, so the penalty is
differentiable w.r.t. the critic's parameters and changes its gradients.
"""
import torch
import torch.nn as nn


class Critic(nn.Module):
    def __init__(self, d=2, h=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, h), nn.Tanh(), nn.Linear(h, h), nn.Tanh(), nn.Linear(h, 1))

    def forward(self, x):
        return self.net(x)


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.size(0), 1)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(interp)
    grads = torch.autograd.grad(outputs=scores, inputs=interp,  # fixed: GG503
                                grad_outputs=torch.ones_like(scores), create_graph=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


class WGANGP:
    def __init__(self, z_dim=4, lam=10.0):
        self.G = nn.Sequential(nn.Linear(z_dim, 32), nn.ReLU(), nn.Linear(32, 2))
        self.D = Critic()
        self.opt_g = torch.optim.Adam(self.G.parameters(), lr=1e-4, betas=(0.0, 0.9))
        self.opt_d = torch.optim.Adam(self.D.parameters(), lr=1e-4, betas=(0.0, 0.9))
        self.z_dim, self.lam = z_dim, lam

    def critic_losses(self, real):
        fake = self.G(torch.randn(real.size(0), self.z_dim)).detach()
        wdist = self.D(fake).mean() - self.D(real).mean()
        gp = gradient_penalty(self.D, real, fake)
        return {"wdist": wdist, "gp": gp, "total": wdist + self.lam * gp}

    def critic_step(self, real):
        losses = self.critic_losses(real)
        self.opt_d.zero_grad()
        losses["total"].backward()
        self.opt_d.step()
        return {k: v.item() for k, v in losses.items()}

    def generator_step(self, n):
        g_loss = -self.D(self.G(torch.randn(n, self.z_dim))).mean()
        self.opt_g.zero_grad()
        g_loss.backward()
        self.opt_g.step()
        return g_loss.item()


def penalty_changes_critic_grads(gan, real):
    torch.manual_seed(123)
    gan.D.zero_grad()
    gan.critic_losses(real)["total"].backward()
    with_gp = [p.grad.clone() for p in gan.D.parameters()]
    torch.manual_seed(123)
    gan.D.zero_grad()
    gan.critic_losses(real)["wdist"].backward()
    without_gp = [p.grad.clone() for p in gan.D.parameters()]
    return any(not torch.allclose(a, b) for a, b in zip(with_gp, without_gp))


def main():
    torch.manual_seed(0)
    gan = WGANGP()
    data = torch.randn(256, 2) * 0.5 + 2.0
    for it in range(3):
        for _ in range(3):
            stats = gan.critic_step(data[torch.randint(0, 256, (32,))])
        g = gan.generator_step(32)
        print(f"it {it}: wdist={stats['wdist']:.4f} gp={stats['gp']:.4f} g={g:.4f}")
    return penalty_changes_critic_grads(gan, data[:32])


if __name__ == "__main__":
    assert main(), "gradient penalty had no effect"
    print("FIXED: ok")
