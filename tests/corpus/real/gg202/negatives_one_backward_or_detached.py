"""The fixed versions: detach the fake batch, sum the losses, retain the graph, or recompute.

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorch/examples/pull/69 and /issues/116 - DCGAN as published: the
  discriminator sees `fake.detach()`, the generator step backpropagates through `fake`.
* https://github.com/facebookresearch/pytorch_GAN_zoo/issues/83 (PR #85) - the two generator
  losses end up in one backward.
* https://github.com/naver-ai/StyleMapGAN/issues/16 - the reporter's workaround: one backward
  of the weighted sum `g_w_rec_loss`.
* https://github.com/rosinality/swapping-autoencoder-pytorch/issues/12 - reuse the first graph
  with `retain_graph=True`.
* https://github.com/karpathy/nn-zero-to-hero/issues/31 - the forward pass inside the loop.
"""

import torch
from torch import nn


def dcgan_step(net_d, net_g, optimizer_d, optimizer_g, criterion, real, nz):
    batch_size = real.size(0)
    net_d.zero_grad()
    label = torch.full((batch_size,), 1.0)
    output = net_d(real).view(-1)
    err_d_real = criterion(output, label)
    err_d_real.backward()
    noise = torch.randn(batch_size, nz)
    fake = net_g(noise)
    label.fill_(0.0)
    output = net_d(fake.detach()).view(-1)
    err_d_fake = criterion(output, label)
    err_d_fake.backward()
    optimizer_d.step()
    net_g.zero_grad()
    label.fill_(1.0)
    output = net_d(fake).view(-1)
    err_g = criterion(output, label)
    err_g.backward()
    optimizer_g.step()


class GdppGan:
    def __init__(self) -> None:
        self.net_g = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.net_d = nn.Sequential(nn.Linear(8, 6), nn.LeakyReLU(0.2))
        self.classifier = nn.Linear(6, 1)
        self.optimizer_g = torch.optim.Adam(self.net_g.parameters())

    def optimize_generator(self, z, real_features):
        self.optimizer_g.zero_grad()
        fake = self.net_g(z)
        fake_features = self.net_d(fake)
        loss_g_fake = -self.classifier(fake_features).mean()
        loss_gdpp = (fake_features.mean(0) - real_features.mean(0)).pow(2).sum()
        (loss_g_fake + loss_gdpp).backward()
        self.optimizer_g.step()

    def optimize_generator_retained(self, z, real_features):
        self.optimizer_g.zero_grad()
        fake_features = self.net_d(self.net_g(z))
        loss_g_fake = -self.classifier(fake_features).mean()
        loss_g_fake.backward(retain_graph=True)
        loss_gdpp = (fake_features.mean(0) - real_features.mean(0)).pow(2).sum()
        loss_gdpp.backward()
        self.optimizer_g.step()


def generator_update(model, g_optim, lambda_adv, lambda_w_rec):
    adv_loss, w_rec_loss = model(None, "G")
    g_w_rec_loss = adv_loss.mean() * lambda_adv + w_rec_loss.mean() * lambda_w_rec
    g_optim.zero_grad()
    g_w_rec_loss.backward()
    g_optim.step()


def bigram_training(xs, ys, steps):
    W = torch.randn((27, 27), requires_grad=True)
    xenc = nn.functional.one_hot(xs, num_classes=27).float()
    for k in range(steps):
        logits = xenc @ W
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdim=True)
        loss = -probs[torch.arange(len(ys)), ys].log().mean()
        W.grad = None
        loss.backward()
        W.data += -0.1 * W.grad


# Two discriminators on two separate forward passes of the generator: separate graphs.
def two_discriminators(net_g, net_d1, net_d2, optimizer_g, z):
    optimizer_g.zero_grad()
    loss_1 = -net_d1(net_g(z)).mean()
    loss_1.backward()
    loss_2 = -net_d2(net_g(z)).mean()
    loss_2.backward()
    optimizer_g.step()
