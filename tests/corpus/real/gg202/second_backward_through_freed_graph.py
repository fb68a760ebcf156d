"""A second backward pass through a graph the first one already freed (GG202).

The marker sits on the backward that frees the graph, where GradGuard reports it.

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorch/examples/issues/116 - DCGAN: without `fake.detach()` in the
  discriminator step, the generator step's `errG.backward()` walks through the generator
  graph that `errD_fake.backward()` freed ("Trying to backward through the graph second time").
* https://github.com/facebookresearch/pytorch_GAN_zoo/issues/83 - `lossGFake.backward()` and
  then the GDPP loss, computed from the same discriminator features, backpropagated separately.
* https://github.com/naver-ai/StyleMapGAN/issues/16 - one model call returns two losses;
  `g_loss.backward()` then `(w_rec_loss * lambda).backward()` fails.
* https://github.com/karpathy/nn-zero-to-hero/issues/31 - the forward pass (`logits = xenc @ W`,
  `counts = logits.exp()` ...) runs once while the backward/update cell runs repeatedly.
"""

import torch
from torch import nn


# Source: pytorch/examples#116, the DCGAN step with the detach left out; both networks,
# both optimisers and the criterion are parameters.
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
    output = net_d(fake).view(-1)
    err_d_fake = criterion(output, label)
    err_d_fake.backward()  # missed: GG202
    optimizer_d.step()
    net_g.zero_grad()
    label.fill_(1.0)
    output = net_d(fake).view(-1)
    err_g = criterion(output, label)
    err_g.backward()
    optimizer_g.step()


class GdppGan:
    """pytorch_GAN_zoo#83: the generator update backpropagates two losses that share the
    discriminator's features of the fake batch."""

    def __init__(self) -> None:
        self.net_g = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.net_d = nn.Sequential(nn.Linear(8, 6), nn.LeakyReLU(0.2))
        self.classifier = nn.Linear(6, 1)
        self.optimizer_g = torch.optim.Adam(self.net_g.parameters())

    def optimize_generator(self, z, real_features):
        self.optimizer_g.zero_grad()
        fake = self.net_g(z)
        fake_features = self.net_d(fake)
        pred_fake = self.classifier(fake_features)
        loss_g_fake = -pred_fake.mean()
        loss_g_fake.backward()  # expect: GG202
        loss_gdpp = (fake_features.mean(0) - real_features.mean(0)).pow(2).sum()
        loss_gdpp.backward()
        self.optimizer_g.step()


# Source: StyleMapGAN#16: one call of the model returns both generator losses.
def generator_update(model, g_optim, lambda_adv, lambda_w_rec):
    adv_loss, w_rec_loss = model(None, "G")
    adv_loss = adv_loss.mean()
    w_rec_loss = w_rec_loss.mean()
    g_optim.zero_grad()
    (adv_loss * lambda_adv).backward()  # missed: GG202
    (w_rec_loss * lambda_w_rec).backward()
    g_optim.step()


# Source: nn-zero-to-hero#31: the bigram model's forward pass sits before the update loop.
def bigram_training(xs, ys, steps):
    W = torch.randn((27, 27), requires_grad=True)
    xenc = nn.functional.one_hot(xs, num_classes=27).float()
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdim=True)
    loss = -probs[torch.arange(len(ys)), ys].log().mean()
    for k in range(steps):
        W.grad = None
        loss.backward()  # expect: GG202
        W.data += -0.1 * W.grad
