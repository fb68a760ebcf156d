"""GG608 - the optimizer that steps is not the one the loss reaches.

A DeblurGAN-style ``Continue_train_WGAN`` loop trains a generator with a
global and a patch discriminator.  In the discriminator phase the fake images
are detached, so ``loss_D.backward()`` only produces gradients for the two
discriminators.  FIXED version: the phase ends with ``optimizer_D.step()``
(the buggy file stepped ``optimizer_G`` there), so the discriminators are
updated with the gradients of ``loss_D``.

Modelled on: https://github.com/zhaoyuzhi/DeblurGANv2-MobileNetv123-PyTorch/issues/7
"""
import copy
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

OPT = {"lr_g": 1e-4, "lr_d": 1e-4, "lambda_l1": 10.0, "lambda_gan": 0.01, "epochs": 1, "batch_size": 4}


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(16, 3, 3, padding=1))

    def forward(self, blurry):
        return torch.clamp(blurry + self.net(blurry), 0, 1)


class PatchDiscriminator(nn.Module):
    def __init__(self, n_layers=2):
        super().__init__()
        layers, c = [nn.Conv2d(3, 8, 4, 2, 1), nn.LeakyReLU(0.2)], 8
        for _ in range(n_layers - 1):
            layers += [nn.Conv2d(c, c * 2, 4, 2, 1), nn.LeakyReLU(0.2)]
            c *= 2
        layers += [nn.Conv2d(c, 1, 3, 1, 1)]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def Continue_train_WGAN(opt, generator, discriminator1, discriminator2, dataloader):
    criterion_L1 = nn.L1Loss()
    optimizer_G = torch.optim.Adam(generator.parameters(), lr=opt["lr_g"], betas=(0.5, 0.999))
    optimizer_D = torch.optim.Adam(list(discriminator1.parameters()) + list(discriminator2.parameters()),
                                   lr=opt["lr_d"], betas=(0.5, 0.999))
    for epoch in range(opt["epochs"]):
        for i, (true_input, true_target) in enumerate(dataloader):
            # ---------------- train generator ----------------
            optimizer_G.zero_grad()
            fake_target = generator(true_input)
            loss_pixel = criterion_L1(fake_target, true_target)
            loss_gan = -discriminator1(fake_target).mean() - discriminator2(fake_target[:, :, ::2, ::2]).mean()
            loss_G = opt["lambda_l1"] * loss_pixel + opt["lambda_gan"] * loss_gan
            loss_G.backward()
            optimizer_G.step()

            # -------------- train discriminators --------------
            optimizer_D.zero_grad()
            fake = fake_target.detach()
            loss_D1 = discriminator1(fake).mean() - discriminator1(true_target).mean()
            loss_D2 = discriminator2(fake[:, :, ::2, ::2]).mean() - discriminator2(true_target[:, :, ::2, ::2]).mean()
            loss_D = loss_D1 + loss_D2
            loss_D.backward()
            optimizer_D.step()  # fixed: GG608
            print(f"[Epoch {epoch}] [Batch {i}] pixel {loss_pixel.item():.4f} G {loss_G.item():.4f} D {loss_D.item():.4f}")


def main():
    torch.manual_seed(0)
    sharp = torch.rand(12, 3, 16, 16)
    blurry = torch.nn.functional.avg_pool2d(sharp, 3, 1, 1)
    loader = DataLoader(TensorDataset(blurry, sharp), batch_size=OPT["batch_size"], shuffle=True)
    G, D1, D2 = Generator(), PatchDiscriminator(), PatchDiscriminator(1)
    d_before = copy.deepcopy([D1.state_dict(), D2.state_dict()])
    Continue_train_WGAN(OPT, G, D1, D2, loader)
    unchanged = all(torch.equal(v, m.state_dict()[k]) for sd, m in zip(d_before, (D1, D2)) for k, v in sd.items())
    return unchanged


if __name__ == "__main__":
    assert not main()
    print("FIXED: ok")
