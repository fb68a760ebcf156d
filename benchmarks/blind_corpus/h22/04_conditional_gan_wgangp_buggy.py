"""Category GG202 - second backward() through a graph that the first backward() freed.

A deblurring conditional GAN (pix2pix-style model class with a WGAN-GP critic).
In backward_D the critic scores self.fake_B without detaching it, so loss_D.backward()
also runs through the generator part of the graph and frees its saved tensors.
backward_G then backpropagates through the same self.fake_B and torch raises:
    RuntimeError: Trying to backward through the graph a second time (or directly
    access saved tensors after they have already been freed). ...

Modelled on: https://github.com/KupynOrest/DeblurGAN/issues/56
"""
import sys
from types import SimpleNamespace

import torch
import torch.nn as nn

opt = SimpleNamespace(channels=3, ngf=8, ndf=8, size=16, batch=2, lr=1e-4,
                      lambda_gp=10.0, lambda_content=100.0, iters=3)


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.InstanceNorm2d(cout), nn.ReLU())


class ResnetGenerator(nn.Module):
    def __init__(self, ch, ngf):
        super().__init__()
        self.body = nn.Sequential(conv_block(ch, ngf), conv_block(ngf, ngf), nn.Conv2d(ngf, ch, 3, padding=1))

    def forward(self, x):
        return torch.clamp(x + self.body(x), -1, 1)


class NLayerCritic(nn.Module):
    def __init__(self, ch, ndf):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(ch, ndf, 4, 2, 1), nn.LeakyReLU(0.2),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1), nn.LeakyReLU(0.2),
            nn.Conv2d(ndf * 2, 1, 4, 1, 0))

    def forward(self, x):
        return self.net(x).mean(dim=(1, 2, 3))


def gradient_penalty(netD, real, fake, lambda_gp):
    alpha = torch.rand(real.size(0), 1, 1, 1)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    score = netD(interp)
    grads = torch.autograd.grad(score.sum(), interp, create_graph=True)[0]
    return lambda_gp * ((grads.flatten(1).norm(2, dim=1) - 1) ** 2).mean()


class ConditionalGAN:
    def __init__(self, opt):
        self.opt = opt
        self.netG = ResnetGenerator(opt.channels, opt.ngf)
        self.netD = NLayerCritic(opt.channels, opt.ndf)
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=opt.lr, betas=(0.5, 0.999))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=opt.lr, betas=(0.5, 0.999))
        self.content_loss = nn.L1Loss()

    def set_input(self, batch):
        self.real_A, self.real_B = batch["blurred"], batch["sharp"]

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def backward_D(self):
        pred_fake = self.netD(self.fake_B)
        pred_real = self.netD(self.real_B)
        gp = gradient_penalty(self.netD, self.real_B, self.fake_B.detach(), self.opt.lambda_gp)
        self.loss_D = pred_fake.mean() - pred_real.mean() + gp
        self.loss_D.backward()

    def backward_G(self):
        self.loss_G_GAN = -self.netD(self.fake_B).mean()
        self.loss_G_content = self.content_loss(self.fake_B, self.real_B) * self.opt.lambda_content
        self.loss_G = self.loss_G_GAN + self.loss_G_content
        self.loss_G.backward()  # bug: GG202

    def optimize_parameters(self):
        self.forward()
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()

    def get_current_errors(self):
        return {"D": self.loss_D.item(), "G_GAN": self.loss_G_GAN.item(),
                "G_L1": self.loss_G_content.item()}


def fake_loader(opt):
    for _ in range(opt.iters):
        sharp = torch.rand(opt.batch, opt.channels, opt.size, opt.size) * 2 - 1
        blurred = nn.functional.avg_pool2d(sharp, 3, 1, 1)
        yield {"blurred": blurred, "sharp": sharp}


def main():
    model = ConditionalGAN(opt)
    for i, batch in enumerate(fake_loader(opt)):
        model.set_input(batch)
        model.optimize_parameters()
        errors = model.get_current_errors()
        print(f"iter {i}: " + ", ".join(f"{k}={v:.3f}" for k, v in errors.items()))


if __name__ == "__main__":
    torch.manual_seed(0)
    try:
        main()
    except RuntimeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        sys.exit(0)
    raise SystemExit("NO BUG")
