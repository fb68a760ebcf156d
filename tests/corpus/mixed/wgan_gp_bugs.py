"""WGAN-GP on toy 2-D data with two planted mistakes (marked `# expect:`).

* the gradient penalty is backpropagated on its own, but its gradients were taken without
  `create_graph=True`, so they have no history: "element 0 of tensors does not require grad";
* the epoch's critic loss is summed as a tensor, which keeps every step's graph alive.
"""

import torch
from torch import nn

torch.manual_seed(0)
LATENT, BATCH, LAMBDA_GP = 8, 64, 10.0


def real_batch(n):
    angle = torch.rand(n) * 6.2831853
    return torch.stack([angle.cos(), angle.sin()], dim=1)


generator = nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 2))
critic = nn.Sequential(nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3, betas=(0.5, 0.9))
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))

for epoch in range(2):
    epoch_critic_loss = 0.0
    for step in range(10):
        real = real_batch(BATCH)
        fake = generator(torch.randn(BATCH, LATENT)).detach()

        opt_c.zero_grad()
        loss_c = critic(fake).mean() - critic(real).mean()
        loss_c.backward()

        alpha = torch.rand(BATCH, 1)
        mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        (grads,) = torch.autograd.grad(critic(mixed).sum(), mixed)  # expect: GG503
        penalty = LAMBDA_GP * ((grads.norm(2, dim=1) - 1) ** 2).mean()
        penalty.backward()
        opt_c.step()
        epoch_critic_loss += loss_c  # expect: GG203

        opt_g.zero_grad()
        loss_g = -critic(generator(torch.randn(BATCH, LATENT))).mean()
        loss_g.backward()
        opt_g.step()
    print(f"epoch {epoch}: critic {float(epoch_critic_loss) / 10:.3f}")
