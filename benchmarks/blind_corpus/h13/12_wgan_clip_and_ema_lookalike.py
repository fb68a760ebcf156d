"""Category GG301 look-alike - in-place updates of parameters that are legal.

A WGAN critic clamps its weights in place after each step and the generator
keeps an exponential-moving-average copy whose parameters are updated with
``mul_``/``add_``. Both touch leaf tensors in place, but one goes through
``.data`` and the other runs under ``torch.no_grad()`` (and the EMA copy does
not require grad anyway), so autograd never objects. No error; prints OK.
Modelled on: none found (standard WGAN weight clipping + EMA idiom)
"""
import copy

import torch
import torch.nn as nn

HP = {"z": 8, "x": 10, "batch": 16, "lr": 5e-5, "clip": 0.01, "n_critic": 2,
      "iters": 3, "ema_decay": 0.99}


def make_G(hp):
    return nn.Sequential(nn.Linear(hp["z"], 32), nn.ReLU(), nn.Linear(32, hp["x"]))


def make_D(hp):
    return nn.Sequential(nn.Linear(hp["x"], 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))


class EMA:
    def __init__(self, model, decay):
        self.shadow = copy.deepcopy(model)
        self.shadow.requires_grad_(False)
        self.decay = decay

    @torch.no_grad()
    def update(self, model):
        for ema_p, p in zip(self.shadow.parameters(), model.parameters()):
            ema_p.mul_(self.decay).add_(p, alpha=1 - self.decay)


def critic_step(netD, netG, real, optD, hp):
    optD.zero_grad()
    fake = netG(torch.randn(real.size(0), hp["z"])).detach()
    loss_d = netD(fake).mean() - netD(real).mean()
    loss_d.backward()
    optD.step()
    for p in netD.parameters():
        p.data.clamp_(-hp["clip"], hp["clip"])
    return loss_d.item()


def generator_step(netD, netG, optG, hp):
    optG.zero_grad()
    loss_g = -netD(netG(torch.randn(hp["batch"], hp["z"]))).mean()
    loss_g.backward()
    optG.step()
    return loss_g.item()


def main():
    torch.manual_seed(0)
    netG, netD = make_G(HP), make_D(HP)
    optG = torch.optim.RMSprop(netG.parameters(), lr=HP["lr"])
    optD = torch.optim.RMSprop(netD.parameters(), lr=HP["lr"])
    ema = EMA(netG, HP["ema_decay"])
    for it in range(HP["iters"]):
        for _ in range(HP["n_critic"]):
            ld = critic_step(netD, netG, torch.randn(HP["batch"], HP["x"]) + 2, optD, HP)
        lg = generator_step(netD, netG, optG, HP)
        ema.update(netG)
        print(f"iter {it} loss_D {ld:.5f} loss_G {lg:.5f}")
    assert all(p.abs().max() <= HP["clip"] + 1e-8 for p in netD.parameters())


if __name__ == "__main__":
    main()
    print("OK")
