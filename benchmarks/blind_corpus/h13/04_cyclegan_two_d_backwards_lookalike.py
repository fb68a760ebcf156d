"""Category GG202 look-alike - several backward() calls in one iteration, each on its own graph.

A CycleGAN-style model calls backward() once for the generators and then once
per discriminator. The discriminator losses are built from fresh forward passes
on detached fakes, so no call walks a graph another call already freed. The
optional identity term is backpropagated with retain_graph=True first, so the
later backward through the shared generator graph is legal too.
No error; prints OK.
Modelled on: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/1330
"""
import itertools

import torch
import torch.nn as nn

OPT = {"dim": 10, "batch": 4, "lr": 2e-4, "lambda_cycle": 10.0, "lambda_idt": 0.5, "iters": 3}


def mlp(i, o):
    return nn.Sequential(nn.Linear(i, 24), nn.ReLU(), nn.Linear(24, o))


class CycleGANModel:
    def __init__(self, opt):
        d = opt["dim"]
        self.opt = opt
        self.netG_A, self.netG_B = mlp(d, d), mlp(d, d)
        self.netD_A, self.netD_B = mlp(d, 1), mlp(d, 1)
        self.criterionGAN = nn.MSELoss()
        self.criterionCycle = nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(itertools.chain(self.netG_A.parameters(), self.netG_B.parameters()), lr=opt["lr"])
        self.optimizer_D = torch.optim.Adam(itertools.chain(self.netD_A.parameters(), self.netD_B.parameters()), lr=opt["lr"])

    def set_input(self, a, b):
        self.real_A, self.real_B = a, b

    def forward(self):
        self.fake_B = self.netG_A(self.real_A)
        self.rec_A = self.netG_B(self.fake_B)
        self.fake_A = self.netG_B(self.real_B)
        self.rec_B = self.netG_A(self.fake_A)

    def gan_loss(self, pred, is_real):
        return self.criterionGAN(pred, torch.full_like(pred, 1.0 if is_real else 0.0))

    def backward_D_basic(self, netD, real, fake):
        loss = 0.5 * (self.gan_loss(netD(real), True) + self.gan_loss(netD(fake.detach()), False))
        loss.backward()
        return loss

    def backward_G(self):
        lam = self.opt["lambda_cycle"]
        if self.opt["lambda_idt"] > 0:
            idt = self.criterionCycle(self.netG_A(self.real_B), self.real_B) * lam * self.opt["lambda_idt"]
            idt.backward(retain_graph=True)
        self.loss_G = (self.gan_loss(self.netD_A(self.fake_B), True)
                       + self.gan_loss(self.netD_B(self.fake_A), True)
                       + self.criterionCycle(self.rec_A, self.real_A) * lam
                       + self.criterionCycle(self.rec_B, self.real_B) * lam)
        self.loss_G.backward()

    def set_requires_grad(self, nets, flag):
        for net in nets:
            for p in net.parameters():
                p.requires_grad = flag

    def optimize_parameters(self):
        self.forward()
        self.set_requires_grad([self.netD_A, self.netD_B], False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()
        self.set_requires_grad([self.netD_A, self.netD_B], True)
        self.optimizer_D.zero_grad()
        self.loss_D_A = self.backward_D_basic(self.netD_A, self.real_B, self.fake_B)
        self.loss_D_B = self.backward_D_basic(self.netD_B, self.real_A, self.fake_A)
        self.optimizer_D.step()


def main():
    torch.manual_seed(0)
    model = CycleGANModel(OPT)
    for it in range(OPT["iters"]):
        model.set_input(torch.randn(OPT["batch"], OPT["dim"]), torch.randn(OPT["batch"], OPT["dim"]) + 1)
        model.optimize_parameters()
        print(f"iter {it} G={model.loss_G.item():.3f} D_A={model.loss_D_A.item():.3f} D_B={model.loss_D_B.item():.3f}")


if __name__ == "__main__":
    main()
    print("OK")
