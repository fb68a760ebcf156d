"""GG301 look-alike (correct code).

A WGAN critic clips its weights in place after every optimizer step, and the
generator's output layer bias is shifted in place at construction time.
Both in-place updates touch leaf parameters that require grad, but they run
either on `.data` inside torch.no_grad() or under no_grad, so autograd never
records them.  Nothing is wrong here.
"""
import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, z_dim=8, out_dim=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, 32), nn.ReLU(), nn.Linear(32, out_dim))
        with torch.no_grad():
            self.net[-1].bias.add_(0.5)

    def forward(self, z):
        return self.net(z)


class Critic(nn.Module):
    def __init__(self, in_dim=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x)

    def clip_weights(self, c):
        for p in self.parameters():
            p.data.clamp_(-c, c)


def real_batch(n):
    return torch.randn(n, 2) * 0.3 + torch.tensor([1.0, -1.0])


def main():
    torch.manual_seed(0)
    G, D = Generator(), Critic()
    opt_g = torch.optim.RMSprop(G.parameters(), lr=5e-4)
    opt_d = torch.optim.RMSprop(D.parameters(), lr=5e-4)
    clip, n_critic = 0.01, 3
    for it in range(4):
        for _ in range(n_critic):
            real = real_batch(32)
            fake = G(torch.randn(32, 8)).detach()
            d_loss = D(fake).mean() - D(real).mean()
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            D.clip_weights(clip)
        g_loss = -D(G(torch.randn(32, 8))).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
        print(f"it {it}: d_loss={d_loss.item():.4f} g_loss={g_loss.item():.4f}")
    assert all(p.abs().max() <= clip + 1e-6 for p in D.parameters())


if __name__ == "__main__":
    main()
    print("OK")
