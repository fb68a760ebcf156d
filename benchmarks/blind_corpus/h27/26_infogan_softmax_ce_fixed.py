"""FIXED version. InfoGAN: auxiliary categorical head ends in nn.Softmax, trained with CrossEntropyLoss.

Modelled on: https://github.com/eriklindernoren/PyTorch-GAN/issues/84

The discriminator's `aux_layer` is `nn.Sequential(nn.Linear(...), nn.Softmax(dim=1))`
and its output `pred_label` is given to `nn.CrossEntropyLoss()` for the
categorical information loss.  CrossEntropyLoss applies log_softmax itself,
so the probabilities are squashed a second time: the loss can never go below
log(1 + (C-1)/e) (about 1.46 for C=10) and the gradients are tiny, so the
latent code is barely learned.
"""
import argparse

import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, latent_dim=8, n_classes=10, code_dim=2, img_dim=32):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(latent_dim + n_classes + code_dim, 64), nn.ReLU(),
                                   nn.Linear(64, img_dim), nn.Tanh())

    def forward(self, noise, labels, code):
        return self.model(torch.cat((noise, labels, code), -1))


class Discriminator(nn.Module):
    def __init__(self, n_classes=10, code_dim=2, img_dim=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(img_dim, 64), nn.LeakyReLU(0.2))
        self.adv_layer = nn.Linear(64, 1)
        self.aux_layer = nn.Linear(64, n_classes)  # logits; CrossEntropyLoss applies log_softmax
        self.latent_layer = nn.Linear(64, code_dim)

    def forward(self, img):
        out = self.body(img)
        return self.adv_layer(out), self.aux_layer(out), self.latent_layer(out)


def to_categorical(y, num_columns):
    return torch.eye(num_columns)[y]


def info_step(generator, discriminator, optimizer_info, opt, categorical_loss, continuous_loss):
    optimizer_info.zero_grad()
    sampled_labels = torch.randint(0, opt.n_classes, (opt.batch_size,))
    z = torch.randn(opt.batch_size, opt.latent_dim)
    code = torch.rand(opt.batch_size, opt.code_dim) * 2 - 1
    gen_imgs = generator(z, to_categorical(sampled_labels, opt.n_classes), code)
    _, pred_label, pred_code = discriminator(gen_imgs)
    info_loss = (opt.lambda_cat * categorical_loss(pred_label, sampled_labels)
                 + opt.lambda_con * continuous_loss(pred_code, code))
    info_loss.backward()
    optimizer_info.step()
    return info_loss.item(), pred_label.detach(), sampled_labels


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n_classes", type=int, default=10)
    p.add_argument("--latent_dim", type=int, default=8)
    p.add_argument("--code_dim", type=int, default=2)
    p.add_argument("--batch_size", type=int, default=64)
    p.add_argument("--lambda_cat", type=float, default=1.0)
    p.add_argument("--lambda_con", type=float, default=0.0)
    p.add_argument("--steps", type=int, default=60)
    opt = p.parse_args(argv)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    generator, discriminator = Generator(opt.latent_dim, opt.n_classes, opt.code_dim), Discriminator(opt.n_classes, opt.code_dim)
    optimizer_info = torch.optim.Adam(list(generator.parameters()) + list(discriminator.parameters()), lr=3e-2)
    categorical_loss, continuous_loss = nn.CrossEntropyLoss(), nn.MSELoss()
    for _ in range(opt.steps):
        loss, pred, labels = info_step(generator, discriminator, optimizer_info, opt,
                                       categorical_loss, continuous_loss)
    if loss > 1.4:
        print(f"BUGGY: categorical info loss stuck at {loss:.3f} (floor ~1.46 from double softmax)")
    else:
        print("FIXED: ok")


if __name__ == "__main__":
    main([])
