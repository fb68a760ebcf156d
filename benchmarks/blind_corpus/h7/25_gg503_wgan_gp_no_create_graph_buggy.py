"""GG503 - autograd.grad results added to a loss without create_graph=True.

Mistake: a WGAN-GP critic update.  ``calc_gradient_penalty`` takes the gradient
of the critic's output w.r.t. interpolated samples with ``autograd.grad`` but
passes only ``retain_graph=True``, not ``create_graph=True``.  The returned
gradients are therefore constants without history, the penalty built from them
has no ``grad_fn``, and the separate ``gradient_penalty.backward()`` (done in
the style of the original WGAN-GP code, one backward per term) fails.

torch raises: RuntimeError: element 0 of tensors does not require grad and does
not have a grad_fn

Modelled on: https://github.com/caogang/wgan-gp/issues/4
"""
import torch
import torch.nn as nn
from torch import autograd

DIM = 32
LAMBDA = 10
CRITIC_ITERS = 3
BATCH_SIZE = 16
ITERS = 3
NOISE = 8


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(NOISE, DIM), nn.ReLU(True), nn.Linear(DIM, DIM), nn.ReLU(True),
                                  nn.Linear(DIM, 2))

    def forward(self, noise):
        return self.main(noise)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(2, DIM), nn.ReLU(True), nn.Linear(DIM, DIM), nn.ReLU(True),
                                  nn.Linear(DIM, 1))

    def forward(self, inputs):
        return self.main(inputs).view(-1)


def inf_gaussians():
    centers = torch.tensor([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    while True:
        idx = torch.randint(0, 4, (BATCH_SIZE,))
        yield centers[idx] + 0.05 * torch.randn(BATCH_SIZE, 2)


def calc_gradient_penalty(netD, real_data, fake_data):
    alpha = torch.rand(BATCH_SIZE, 1).expand(real_data.size())
    interpolates = (alpha * real_data + (1 - alpha) * fake_data).requires_grad_(True)
    disc_interpolates = netD(interpolates)
    gradients = autograd.grad(outputs=disc_interpolates, inputs=interpolates,  # bug: GG503
                              grad_outputs=torch.ones(disc_interpolates.size()),
                              retain_graph=True, only_inputs=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA


def main():
    torch.manual_seed(0)
    netG, netD = Generator(), Discriminator()
    optD = torch.optim.Adam(netD.parameters(), lr=1e-4, betas=(0.5, 0.9))
    optG = torch.optim.Adam(netG.parameters(), lr=1e-4, betas=(0.5, 0.9))
    one, mone = torch.tensor(1.0), torch.tensor(-1.0)
    data = inf_gaussians()
    for iteration in range(ITERS):
        for p in netD.parameters():
            p.requires_grad = True
        for _ in range(CRITIC_ITERS):
            real = next(data)
            netD.zero_grad()
            D_real = netD(real).mean()
            D_real.backward(mone)
            with torch.no_grad():
                fake = netG(torch.randn(BATCH_SIZE, NOISE))
            D_fake = netD(fake).mean()
            D_fake.backward(one)
            gradient_penalty = calc_gradient_penalty(netD, real, fake)
            gradient_penalty.backward()
            optD.step()
        for p in netD.parameters():
            p.requires_grad = False
        netG.zero_grad()
        G = netD(netG(torch.randn(BATCH_SIZE, NOISE))).mean()
        G.backward(mone)
        optG.step()
        print(f"iter {iteration}: W-dist {(D_real - D_fake).item():.4f} GP {gradient_penalty.item():.4f}")


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
