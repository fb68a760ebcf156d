"""GG605 look-alike - a zero_grad() between a backward() and a step(), correctly.

A small DCGAN-style loop on vectors trains the discriminator and generator in
one function.  After ``d_loss.backward()`` the code calls
``opt_g.zero_grad()`` (to drop the generator gradients that the fake-branch
backward leaked into G) and only then ``opt_d.step()``.  It looks like the
"zero_grad between backward and step" mistake, but the optimizer being cleared
is the *generator's*, not the one about to step, so the discriminator's
gradients are intact.  Both networks update.  Runs cleanly.

Modelled on: https://github.com/lucidrains/byol-pytorch/issues/93 (correct variant)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"z": 8, "x": 12, "batch": 16, "steps": 3, "lr": 2e-4}


class G(nn.Module):
    def __init__(self, z, x):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z, 32), nn.ReLU(), nn.Linear(32, x), nn.Tanh())

    def forward(self, z):
        return self.net(z)


class D(nn.Module):
    def __init__(self, x):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(x, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x)


def train_step(gen, disc, opt_g, opt_d, real, cfg):
    # discriminator update: the fake branch is *not* detached, so G also gets grads
    fake = gen(torch.randn(real.size(0), cfg["z"]))
    opt_d.zero_grad()
    d_real, d_fake = disc(real), disc(fake)
    d_loss = F.binary_cross_entropy_with_logits(d_real, torch.ones_like(d_real)) + \
        F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
    d_loss.backward()
    opt_g.zero_grad()          # discard G's leaked grads; D's grads are untouched
    opt_d.step()

    # generator update
    opt_g.zero_grad()
    out = disc(gen(torch.randn(real.size(0), cfg["z"])))
    g_loss = F.binary_cross_entropy_with_logits(out, torch.ones_like(out))
    g_loss.backward()
    opt_g.step()
    return d_loss.item(), g_loss.item()


def main():
    torch.manual_seed(0)
    gen, disc = G(CFG["z"], CFG["x"]), D(CFG["x"])
    opt_g = torch.optim.Adam(gen.parameters(), lr=CFG["lr"], betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(disc.parameters(), lr=CFG["lr"], betas=(0.5, 0.999))
    d0, g0 = disc.net[0].weight.detach().clone(), gen.net[0].weight.detach().clone()
    for step in range(CFG["steps"]):
        real = torch.rand(CFG["batch"], CFG["x"]) * 2 - 1
        dl, gl = train_step(gen, disc, opt_g, opt_d, real, CFG)
        print(f"step {step}: d={dl:.3f} g={gl:.3f}")
    assert not torch.equal(d0, disc.net[0].weight)
    assert not torch.equal(g0, gen.net[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
