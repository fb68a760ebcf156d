"""GG608 - the discriminator's optimizer was built over the generator's parameters.

In the inpainting GAN trainer, optimizer_d is created from
generator.parameters() (copy-paste from optimizer_g).  The discriminator loss
is computed on the detached completed image, so it never reaches the
generator; optimizer_d.step() therefore steps a model the loss does not
touch, and the discriminator itself is never updated.  No error is raised.
Observable: the discriminator's weights are identical before and after training.

Modelled on: https://github.com/zhaoyuzhi/deepfillv2/pull/3
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def get_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr_g", type=float, default=1e-4)
    parser.add_argument("--lr_d", type=float, default=4e-4)
    parser.add_argument("--b1", type=float, default=0.5)
    parser.add_argument("--b2", type=float, default=0.999)
    parser.add_argument("--lambda_l1", type=float, default=10.0)
    parser.add_argument("--lambda_gan", type=float, default=1.0)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--imgsize", type=int, default=16)
    return parser.parse_args([])


class GatedConv2d(nn.Module):
    def __init__(self, in_ch, out_ch, k=3, stride=1, padding=1, activation=True):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, k, stride, padding)
        self.gate = nn.Conv2d(in_ch, out_ch, k, stride, padding)
        self.activation = nn.ELU() if activation else nn.Identity()

    def forward(self, x):
        return self.activation(self.conv(x)) * torch.sigmoid(self.gate(x))


class GatedGenerator(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.coarse = nn.Sequential(GatedConv2d(4, ch), GatedConv2d(ch, ch),
                                    GatedConv2d(ch, 3, activation=False))
        self.refine = nn.Sequential(GatedConv2d(4, ch), GatedConv2d(ch, ch),
                                    GatedConv2d(ch, 3, activation=False))

    def forward(self, img, mask):
        first_in = torch.cat([img * (1 - mask), mask], dim=1)
        first_out = torch.tanh(self.coarse(first_in))
        second_in = img * (1 - mask) + first_out * mask
        second_out = torch.tanh(self.refine(torch.cat([second_in, mask], dim=1)))
        return first_out, second_out


class PatchDiscriminator(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.block = nn.Sequential(
            nn.utils.spectral_norm(nn.Conv2d(4, ch, 4, 2, 1)), nn.LeakyReLU(0.2),
            nn.utils.spectral_norm(nn.Conv2d(ch, 2 * ch, 4, 2, 1)), nn.LeakyReLU(0.2),
            nn.Conv2d(2 * ch, 1, 3, 1, 1))

    def forward(self, img, mask):
        return self.block(torch.cat([img, mask], dim=1))


def random_mask(n, size):
    mask = torch.zeros(n, 1, size, size)
    for i in range(n):
        y, x = torch.randint(0, size // 2, (2,))
        mask[i, :, y:y + size // 2, x:x + size // 2] = 1.0
    return mask


def WGAN_trainer(opt, dataloader):
    generator = GatedGenerator()
    discriminator = PatchDiscriminator()
    L1Loss = nn.L1Loss()
    optimizer_g = torch.optim.Adam(generator.parameters(), lr=opt.lr_g, betas=(opt.b1, opt.b2))
    optimizer_d = torch.optim.Adam(generator.parameters(), lr=opt.lr_d, betas=(opt.b1, opt.b2))  # bug: GG608
    d_before = [p.detach().clone() for p in discriminator.parameters()]
    for epoch in range(opt.epochs):
        for batch_idx, (img,) in enumerate(dataloader):
            mask = random_mask(img.size(0), opt.imgsize)
            first_out, second_out = generator(img, mask)
            first_out_wholeimg = img * (1 - mask) + first_out * mask
            second_out_wholeimg = img * (1 - mask) + second_out * mask

            # train discriminator
            optimizer_d.zero_grad()
            fake_scalar = discriminator(second_out_wholeimg.detach(), mask)
            true_scalar = discriminator(img, mask)
            loss_D = -torch.mean(true_scalar) + torch.mean(fake_scalar)
            loss_D.backward()
            optimizer_d.step()

            # train generator
            optimizer_g.zero_grad()
            first_L1Loss = (first_out_wholeimg - img).abs().mean()
            second_L1Loss = L1Loss(second_out_wholeimg, img)
            GAN_Loss = -torch.mean(discriminator(second_out_wholeimg, mask))
            loss = opt.lambda_l1 * (first_L1Loss + second_L1Loss) + opt.lambda_gan * GAN_Loss
            loss.backward()
            optimizer_g.step()
        print(f"[Epoch {epoch}] D loss {loss_D.item():.4f} G loss {loss.item():.4f}")
    return all(torch.equal(a, b) for a, b in zip(d_before, discriminator.parameters()))


def main():
    torch.manual_seed(0)
    opt = get_opt()
    imgs = torch.rand(8, 3, opt.imgsize, opt.imgsize) * 2 - 1
    loader = DataLoader(TensorDataset(imgs), batch_size=opt.batch_size, shuffle=True)
    return WGAN_trainer(opt, loader)


if __name__ == "__main__":
    if main():
        print("BUGGY: discriminator weights never changed; optimizer_d steps the generator")
    else:
        raise SystemExit("NO BUG")
