"""GG608 look-alike - detach and no_grad around other models, but every stepped
optimizer's model is reached by its loss.

Standard GAN update: the discriminator step uses fake.detach() (so D's loss does not reach
G, and only d_opt steps), the generator step backpropagates through D into G (D also gets
gradients there, but only g_opt steps and D's grads are cleared before its next step).
An EMA copy of G is updated under torch.no_grad() and has no optimizer.
"""
import copy

import torch
import torch.nn as nn


def mlp(i, o, h=16):
    return nn.Sequential(nn.Linear(i, h), nn.LeakyReLU(0.2), nn.Linear(h, o))


@torch.no_grad()
def ema_update(ema_model, model, decay=0.9):
    for pe, p in zip(ema_model.parameters(), model.parameters()):
        pe.mul_(decay).add_(p, alpha=1 - decay)


def main():
    torch.manual_seed(0)
    G, D = mlp(4, 1), mlp(1, 1)
    G_ema = copy.deepcopy(G).requires_grad_(False)
    g_opt = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    d_opt = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
    bce = nn.BCEWithLogitsLoss()
    g0 = [p.detach().clone() for p in G.parameters()]
    d0 = [p.detach().clone() for p in D.parameters()]
    for step in range(30):
        real = 3.0 + 0.5 * torch.randn(32, 1)
        fake = G(torch.randn(32, 4))

        d_opt.zero_grad()
        d_loss = bce(D(real), torch.ones(32, 1)) + bce(D(fake.detach()), torch.zeros(32, 1))
        d_loss.backward()
        d_opt.step()

        g_opt.zero_grad()
        g_loss = bce(D(fake), torch.ones(32, 1))
        g_loss.backward()
        g_opt.step()
        ema_update(G_ema, G)
    assert all(p.grad is not None for p in G.parameters())
    assert not all(torch.equal(a, b) for a, b in zip(g0, G.parameters()))
    assert not all(torch.equal(a, b) for a, b in zip(d0, D.parameters()))
    print(f"d {d_loss.item():.3f} g {g_loss.item():.3f}")


if __name__ == "__main__":
    main()
    print("OK")
