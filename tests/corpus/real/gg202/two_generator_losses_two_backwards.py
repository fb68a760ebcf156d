"""A progressive GAN's generator step backpropagates the adversarial loss and then, when an
extra diversity criterion is switched on, builds a second loss from the SAME discriminator
features and backpropagates it too. The first backward freed the graph the two share, so
the second raises "Trying to backward through the graph a second time". The fix merged
upstream sums the two losses before a single backward.

Source (rewritten in our own words, structure kept):
https://github.com/facebookresearch/pytorch_GAN_zoo/issues/83 (`models/base_GAN.py`,
`optimizeParameters`; fixed in pull request 85)
"""

import torch
from torch import nn


def diversity_loss(feats):
    centred = feats - feats.mean(0, keepdim=True)
    return (centred @ centred.t()).abs().mean()


class BaseGAN:
    def __init__(self, use_diversity=True):
        self.netG = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 4))
        self.netD_features = nn.Sequential(nn.Linear(4, 5), nn.LeakyReLU(0.2))
        self.netD_head = nn.Linear(5, 1)
        self.optimizerG = torch.optim.Adam(self.netG.parameters(), lr=1e-3)
        self.use_diversity = use_diversity

    def optimize_generator(self, noise):
        self.optimizerG.zero_grad()
        fake = self.netG(noise)
        feats = self.netD_features(fake)
        loss_g_fake = -self.netD_head(feats).mean()
        loss_g_fake.backward()  # expect: GG202
        if self.use_diversity:
            loss_div = diversity_loss(feats)
            loss_div.backward()
        self.optimizerG.step()

    def optimize_generator_fixed(self, noise):
        self.optimizerG.zero_grad()
        fake = self.netG(noise)
        feats = self.netD_features(fake)
        loss_g = -self.netD_head(feats).mean()
        if self.use_diversity:
            loss_g = loss_g + diversity_loss(feats)
        loss_g.backward()
        self.optimizerG.step()


if __name__ == "__main__":
    gan = BaseGAN()
    try:
        gan.optimize_generator(torch.randn(4, 3))
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the second-backward error")
    gan.optimize_generator_fixed(torch.randn(4, 3))
