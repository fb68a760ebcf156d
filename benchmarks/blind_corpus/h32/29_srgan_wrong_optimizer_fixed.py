"""FIXED: SRGAN training epoch; the discriminator update steps d_optimizer.

Modelled on: https://github.com/Lornatang/SRGAN-PyTorch/issues/85

In the reported ``train`` function the discriminator block computes the
real/fake BCE loss (on detached SR images), calls ``d_loss.backward()`` and
then ``g_optimizer.step()``; ``d_optimizer`` is never used.  The discriminator
loss never reaches the generator, so that step only re-applies the
generator's stale gradients while the discriminator is never updated.
This fixed version steps ``d_optimizer`` after ``d_loss.backward()``.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, ch=8, scale=2):
        super().__init__()
        self.head = nn.Conv2d(3, ch, 3, padding=1)
        self.body = nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.PReLU(), nn.Conv2d(ch, ch, 3, padding=1))
        self.up = nn.Sequential(nn.Conv2d(ch, 3 * scale * scale, 3, padding=1), nn.PixelShuffle(scale))

    def forward(self, x):
        h = self.head(x)
        return self.up(h + self.body(h))


class Discriminator(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, ch, 3, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(ch, ch * 2, 3, 2, 1),
                                      nn.LeakyReLU(0.2))
        self.classifier = nn.Linear(ch * 2, 1)

    def forward(self, x):
        return self.classifier(F.adaptive_avg_pool2d(self.features(x), 1).flatten(1))


def build_optimizers(generator, discriminator, args):
    g_optimizer = torch.optim.Adam(generator.parameters(), lr=args.lr, betas=(0.9, 0.999))
    d_optimizer = torch.optim.Adam(discriminator.parameters(), lr=args.lr, betas=(0.9, 0.999))
    return g_optimizer, d_optimizer


def train(discriminator, generator, loader, pixel_criterion, adversarial_criterion,
          d_optimizer, g_optimizer, args):
    generator.train()
    discriminator.train()
    for lr_img, hr_img in loader:
        real_label = torch.ones(hr_img.size(0), 1)
        fake_label = torch.zeros(hr_img.size(0), 1)

        # ---- update generator ----
        for p in discriminator.parameters():
            p.requires_grad = False
        g_optimizer.zero_grad()
        sr_img = generator(lr_img)
        pixel_loss = args.pixel_weight * pixel_criterion(sr_img, hr_img)
        adv_loss = args.adversarial_weight * adversarial_criterion(discriminator(sr_img), real_label)
        g_loss = pixel_loss + adv_loss
        g_loss.backward()
        g_optimizer.step()

        # ---- update discriminator ----
        for p in discriminator.parameters():
            p.requires_grad = True
        d_optimizer.zero_grad()
        d_loss_hr = adversarial_criterion(discriminator(hr_img), real_label)
        d_loss_sr = adversarial_criterion(discriminator(sr_img.detach()), fake_label)
        d_loss = d_loss_hr + d_loss_sr
        d_loss.backward()
        d_optimizer.step()


def make_loader(args, n=3):
    g = torch.Generator().manual_seed(0)
    out = []
    for _ in range(n):
        hr = torch.rand(args.batch_size, 3, 16, 16, generator=g)
        out.append((F.avg_pool2d(hr, 2), hr))
    return out


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--pixel-weight", type=float, default=1.0)
    p.add_argument("--adversarial-weight", type=float, default=1e-3)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = get_args([])
    generator, discriminator = Generator(), Discriminator()
    g_optimizer, d_optimizer = build_optimizers(generator, discriminator, args)
    d_before = [p.detach().clone() for p in discriminator.parameters()]
    train(discriminator, generator, make_loader(args), nn.MSELoss(), nn.BCEWithLogitsLoss(),
          d_optimizer, g_optimizer, args)
    assert all(not torch.equal(b, p.detach()) for b, p in zip(d_before, discriminator.parameters()))
    print("FIXED: ok")
