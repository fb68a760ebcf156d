"""A WGAN-GP training script on toy 2-D data: every autograd look-alike here is correct.

* the critic step uses `fake.detach()`, so the generator's graph is not kept;
* the gradient penalty differentiates a gradient, so it asks for `create_graph=True`;
* the critic's parameters are switched off (`requires_grad_(False)`) during the generator step
  and back on afterwards: not "all parameters frozen";
* an exponential moving average of the generator's weights is updated in place under
  `torch.no_grad()`;
* losses are logged with `.item()` after backward, samples are drawn under `no_grad` and
  converted with `.numpy()` there.
"""

import copy

import torch
from torch import nn

torch.manual_seed(0)
LATENT, BATCH, CRITIC_STEPS, LAMBDA_GP = 8, 64, 3, 10.0


def real_batch(n):
    angle = torch.rand(n) * 6.2831853
    return torch.stack([angle.cos(), angle.sin()], dim=1) + 0.05 * torch.randn(n, 2)


generator = nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 2))
critic = nn.Sequential(nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
ema_generator = copy.deepcopy(generator)
for p in ema_generator.parameters():
    p.requires_grad_(False)

opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3, betas=(0.5, 0.9))
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.size(0), 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(mixed)
    (grads,) = torch.autograd.grad(
        outputs=scores.sum(), inputs=mixed, create_graph=True, retain_graph=True
    )
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


history = []
for step in range(20):
    for _ in range(CRITIC_STEPS):
        real = real_batch(BATCH)
        fake = generator(torch.randn(BATCH, LATENT))
        opt_c.zero_grad(set_to_none=True)
        loss_c = critic(fake.detach()).mean() - critic(real).mean()
        loss_c = loss_c + LAMBDA_GP * gradient_penalty(critic, real, fake.detach())
        loss_c.backward()
        opt_c.step()

    for p in critic.parameters():
        p.requires_grad_(False)
    opt_g.zero_grad(set_to_none=True)
    loss_g = -critic(generator(torch.randn(BATCH, LATENT))).mean()
    loss_g.backward()
    opt_g.step()
    for p in critic.parameters():
        p.requires_grad_(True)

    with torch.no_grad():
        for p_ema, p in zip(ema_generator.parameters(), generator.parameters()):
            p_ema.mul_(0.99).add_(p, alpha=0.01)

    history.append((loss_c.item(), loss_g.item()))

with torch.no_grad():
    samples = ema_generator(torch.randn(256, LATENT)).numpy()
print(f"critic {history[-1][0]:.3f} generator {history[-1][1]:.3f} samples {samples.shape}")
