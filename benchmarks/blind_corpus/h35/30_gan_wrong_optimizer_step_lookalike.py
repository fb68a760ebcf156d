"""GAN loop where the generator loss flows through the discriminator.

Modelled on: https://github.com/Lornatang/ESRGAN-PyTorch/issues/39 (counterpart)

Look-alike: each loss is followed by the step of the optimizer whose
model it actually reaches. The generator's adversarial loss passes
through the discriminator (which receives gradients it does not step on,
cleared by d_optimizer.zero_grad() before its own update), and the
discriminator update uses d_optimizer.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_models():
    gen = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    disc = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    return gen, disc


def gan_step(gen, disc, g_opt, d_opt, z, real):
    g_opt.zero_grad()
    fake = gen(z)
    pred = disc(fake)
    g_loss = F.binary_cross_entropy_with_logits(pred, torch.ones_like(pred))
    g_loss.backward()
    g_opt.step()

    d_opt.zero_grad()
    pr, pf = disc(real), disc(fake.detach())
    d_loss = F.binary_cross_entropy_with_logits(pr, torch.ones_like(pr)) + \
        F.binary_cross_entropy_with_logits(pf, torch.zeros_like(pf))
    d_loss.backward()
    d_opt.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    gen, disc = make_models()
    g_opt = torch.optim.Adam(gen.parameters(), lr=1e-3)
    d_opt = torch.optim.Adam(disc.parameters(), lr=1e-3)
    gb = [p.detach().clone() for p in gen.parameters()]
    db = [p.detach().clone() for p in disc.parameters()]
    for _ in range(3):
        gan_step(gen, disc, g_opt, d_opt, torch.randn(8, 4), torch.randn(8, 8))
    assert any(not torch.equal(a, b) for a, b in zip(gb, gen.parameters()))
    assert any(not torch.equal(a, b) for a, b in zip(db, disc.parameters()))
    print("OK")
