"""Single-scale SinGAN-style training: alternating critic and generator steps.

Modelled on: https://github.com/tamarott/SinGAN/issues/148

Fixed version: every generator iteration regenerates the fake image with
the current generator weights, so no backward() goes through a graph saved
before the previous optimizerG.step(); retain_graph is no longer needed.
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
            fake = netG(noise.detach(), prev)
            errG = -netD(fake).mean()
            errG.backward()
            rec_loss = opt.alpha * nn.functional.mse_loss(netG(z_opt.detach(), prev), real)
            rec_loss.backward()
            optimizerG.step()
    return fake.detach()


if __name__ == "__main__":
    torch.manual_seed(0)
    opt = SimpleNamespace(nfc=8, lr_d=5e-4, lr_g=5e-4, niter=2, Dsteps=3, Gsteps=3,
                          alpha=10.0, noise_amp=0.1)
    real = torch.rand(1, 3, 12, 12) * 2 - 1
    try:
        out = train_single_scale(WDiscriminator(opt.nfc), GeneratorConcatSkip2CleanAdd(opt.nfc), real, opt)
        assert out.shape == real.shape
        print("FIXED: ok")
    except RuntimeError as e:
        print(f"FAILED: {e}")
