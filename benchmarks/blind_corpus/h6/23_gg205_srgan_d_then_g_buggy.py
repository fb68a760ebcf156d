"""GG205 (buggy): discriminator stepped before the generator loss reuses D's output.

Mistake: SRGAN-style loop. fake_out = netD(fake_img) is computed once and used by
both losses. d_loss.backward(retain_graph=True) keeps the graph so it can be reused,
but optimizerD.step() then rewrites netD's weights in place. The generator loss
(adversarial term on the same fake_out) backpropagates through netD, whose saved
weights no longer match the versions autograd recorded.
Error raised by torch: RuntimeError: one of the variables needed for gradient
computation has been modified by an inplace operation: [...] is at version N;
expected version N-1 instead. ...
Modelled on: https://github.com/leftthomas/SRGAN/issues/89
"""
import argparse
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser(description="Train Super Resolution Models")
parser.add_argument("--crop_size", default=16, type=int)
parser.add_argument("--upscale_factor", default=2, type=int)
parser.add_argument("--num_epochs", default=1, type=int)


class Generator(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.head = nn.Sequential(nn.Conv2d(3, 16, 5, padding=2), nn.PReLU())
        self.body = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.PReLU())
        self.up = nn.Sequential(nn.Conv2d(16, 3 * scale ** 2, 3, padding=1), nn.PixelShuffle(scale))

    def forward(self, x):
        h = self.head(x)
        return (torch.tanh(self.up(h + self.body(h))) + 1) / 2


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.LeakyReLU(0.2),
                                 nn.Conv2d(16, 32, 3, 2, 1), nn.LeakyReLU(0.2),
                                 nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 1))

    def forward(self, x):
        return torch.sigmoid(self.net(x))


class GeneratorLoss(nn.Module):
    def forward(self, out_labels, out_images, target_images):
        adversarial_loss = torch.mean(1 - out_labels)
        image_loss = F.mse_loss(out_images, target_images)
        tv = (out_images[..., 1:, :] - out_images[..., :-1, :]).pow(2).mean()
        return image_loss + 0.001 * adversarial_loss + 2e-8 * tv


def train(netG, netD, loader, optimizerG, optimizerD, generator_criterion, epoch):
    netG.train()
    netD.train()
    running = {"d_loss": 0.0, "g_loss": 0.0, "batches": 0}
    for data, target in loader:
        real_img, z = target, data
        fake_img = netG(z)

        netD.zero_grad()
        real_out = netD(real_img).mean()
        fake_out = netD(fake_img).mean()
        d_loss = 1 - real_out + fake_out
        d_loss.backward(retain_graph=True)
        optimizerD.step()  # bug: GG205

        netG.zero_grad()
        g_loss = generator_criterion(fake_out, fake_img, real_img)
        g_loss.backward()
        optimizerG.step()

        running["d_loss"] += d_loss.item()
        running["g_loss"] += g_loss.item()
        running["batches"] += 1
    n = running["batches"]
    print(f"[{epoch}] Loss_D: {running['d_loss'] / n:.4f} Loss_G: {running['g_loss'] / n:.4f}")


def main(argv=None):
    opt = parser.parse_args(argv)
    torch.manual_seed(0)
    hr = torch.rand(8, 3, opt.crop_size, opt.crop_size)
    lr = F.interpolate(hr, scale_factor=1 / opt.upscale_factor, mode="bicubic", align_corners=False)
    loader = DataLoader(TensorDataset(lr, hr), batch_size=4, shuffle=True)
    netG, netD = Generator(opt.upscale_factor), Discriminator()
    optimizerG = torch.optim.Adam(netG.parameters())
    optimizerD = torch.optim.Adam(netD.parameters())
    for epoch in range(1, opt.num_epochs + 1):
        train(netG, netD, loader, optimizerG, optimizerD, GeneratorLoss(), epoch)


if __name__ == "__main__":
    try:
        main([])
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
