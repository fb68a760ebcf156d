"""GG202: two backward() calls through one generator graph (second one finds it freed).

The generator step of an encoder/generator/discriminator model returns an adversarial loss
and a stylecode reconstruction loss, both computed from the same forward pass (same
stylecode, same fake image). The training loop back-propagates the adversarial loss first
and then, separately, the reconstruction loss; the first backward() already released the
saved tensors of the shared encoder/generator graph.
Torch raises: RuntimeError: Trying to backward through the graph a second time (or directly
access saved tensors after they have already been freed) ...

Modelled on: https://github.com/naver-ai/StyleMapGAN/issues/16

FIXED VERSION: the adversarial and reconstruction losses are summed and back-propagated once.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iter", type=int, default=3)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--size", type=int, default=16)
    parser.add_argument("--latent_channels", type=int, default=8)
    parser.add_argument("--lambda_adv_loss", type=float, default=1.0)
    parser.add_argument("--lambda_w_rec_loss", type=float, default=1.0)
    parser.add_argument("--lr", type=float, default=2e-3)
    return parser.parse_args([])


class Encoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.LeakyReLU(0.2),
                                 nn.Conv2d(16, c, 3, 2, 1))

    def forward(self, img):
        return self.net(img)


class Generator(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.net = nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(c, 16, 3, 1, 1),
                                 nn.LeakyReLU(0.2), nn.Upsample(scale_factor=2),
                                 nn.Conv2d(16, 3, 3, 1, 1), nn.Tanh())

    def forward(self, stylecode):
        return self.net(stylecode)


class Discriminator(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.LeakyReLU(0.2),
                                 nn.Flatten(), nn.Linear(16 * (size // 2) ** 2, 1))

    def forward(self, img):
        return self.net(img)


class Model(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.encoder = Encoder(args.latent_channels)
        self.generator = Generator(args.latent_channels)
        self.discriminator = Discriminator(args.size)

    def forward(self, real_img, mode):
        if mode == "G":
            stylecode = self.encoder(real_img)
            fake_img = self.generator(stylecode)
            adv_loss = F.softplus(-self.discriminator(fake_img)).mean()
            w_rec_loss = F.mse_loss(self.encoder(fake_img), stylecode)
            return adv_loss, w_rec_loss, stylecode
        elif mode == "D":
            with torch.no_grad():
                fake_img = self.generator(self.encoder(real_img))
            real_pred = self.discriminator(real_img)
            fake_pred = self.discriminator(fake_img)
            return F.softplus(-real_pred).mean() + F.softplus(fake_pred).mean()
        raise ValueError(mode)


def requires_grad(module, flag=True):
    for p in module.parameters():
        p.requires_grad = flag


def train(args, loader, model, g_optim, d_optim, device):
    for i in range(args.iter):
        real_img = next(loader).to(device)

        requires_grad(model.discriminator, True)
        d_loss = model(real_img, "D")
        d_optim.zero_grad()
        d_loss.backward()
        d_optim.step()

        requires_grad(model.discriminator, False)
        adv_loss, w_rec_loss, stylecode = model(real_img, "G")
        adv_loss = adv_loss.mean()
        w_rec_loss = w_rec_loss.mean()
        g_w_rec_loss = adv_loss * args.lambda_adv_loss + w_rec_loss * args.lambda_w_rec_loss

        g_optim.zero_grad()
        g_w_rec_loss.backward()  # fixed: GG202
        g_optim.step()

        print(f"iter {i}: d={d_loss.item():.3f} adv={adv_loss.item():.3f} "
              f"w_rec={w_rec_loss.item():.3f}")


def sample_data(args):
    while True:
        yield torch.rand(args.batch, 3, args.size, args.size) * 2 - 1


def main():
    torch.manual_seed(0)
    args = get_args()
    device = "cpu"
    model = Model(args).to(device)
    g_params = list(model.encoder.parameters()) + list(model.generator.parameters())
    g_optim = torch.optim.Adam(g_params, lr=args.lr, betas=(0.0, 0.99))
    d_optim = torch.optim.Adam(model.discriminator.parameters(), lr=args.lr, betas=(0.0, 0.99))
    train(args, sample_data(args), model, g_optim, d_optim, device)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
