"""Single-scale SinGAN-style training: alternating critic and generator steps.

Modelled on: https://github.com/tamarott/SinGAN/issues/148

SinGAN's train_single_scale() runs opt.Dsteps critic updates and then
opt.Gsteps generator updates.  The fake image is produced once, in the last
critic iteration, and the generator loop reuses it: errG.backward(
retain_graph=True) keeps the generator graph alive and optimizerG.step() then
updates the generator's conv weights in place.  On the second generator
iteration backward() goes through the same retained graph, whose saved conv
weights have been modified, and since PyTorch 1.5 this fails with "one of the
variables needed for gradient computation has been modified by an inplace
operation" ([torch.FloatTensor [3, 32, 3, 3]] is at version 2 ...).
"""
from types import SimpleNamespace

import torch
import torch.nn as nn

torch.set_num_threads(1)


class ConvBlock(nn.Sequential):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.add_module("conv", nn.Conv2d(in_ch, out_ch, 3, 1, 1))
        self.add_module("norm", nn.BatchNorm2d(out_ch))
        self.add_module("LeakyRelu", nn.LeakyReLU(0.2))


class WDiscriminator(nn.Module):
    def __init__(self, nfc):
        super().__init__()
        self.head = ConvBlock(3, nfc)
        self.body = ConvBlock(nfc, nfc)
        self.tail = nn.Conv2d(nfc, 1, 3, 1, 1)

    def forward(self, x):
        return self.tail(self.body(self.head(x)))


class GeneratorConcatSkip2CleanAdd(nn.Module):
    def __init__(self, nfc):
        super().__init__()
        self.head = ConvBlock(3, nfc)
        self.body = ConvBlock(nfc, nfc)
        self.tail = nn.Sequential(nn.Conv2d(nfc, 3, 3, 1, 1), nn.Tanh())

    def forward(self, x, y):
        return self.tail(self.body(self.head(x))) + y


def train_single_scale(netD, netG, real, opt):
    optimizerD = torch.optim.Adam(netD.parameters(), lr=opt.lr_d, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=opt.lr_g, betas=(0.5, 0.999))
    prev = torch.zeros_like(real)
    z_opt = torch.randn_like(real)
    for epoch in range(opt.niter):
        noise = torch.randn_like(real) * opt.noise_amp
        # (1) critic: maximise D(x) - D(G(z))
        for j in range(opt.Dsteps):
            netD.zero_grad()
            errD_real = -netD(real).mean()
            errD_real.backward(retain_graph=True)
            fake = netG(noise.detach(), prev)
            errD_fake = netD(fake.detach()).mean()
            errD_fake.backward(retain_graph=True)
            optimizerD.step()
        # (2) generator: maximise D(G(z)) + reconstruction
        for j in range(opt.Gsteps):
            netG.zero_grad()
            errG = -netD(fake).mean()
            errG.backward(retain_graph=True)
            rec_loss = opt.alpha * nn.functional.mse_loss(netG(z_opt.detach(), prev), real)
            rec_loss.backward(retain_graph=True)
            optimizerG.step()  # bug: GG205
    return fake.detach()


if __name__ == "__main__":
    torch.manual_seed(0)
    opt = SimpleNamespace(nfc=8, lr_d=5e-4, lr_g=5e-4, niter=2, Dsteps=3, Gsteps=3,
                          alpha=10.0, noise_amp=0.1)
    real = torch.rand(1, 3, 12, 12) * 2 - 1
    try:
        train_single_scale(WDiscriminator(opt.nfc), GeneratorConcatSkip2CleanAdd(opt.nfc), real, opt)
        print("no error")
    except RuntimeError as e:
        print(f"BUGGY: {e}")
