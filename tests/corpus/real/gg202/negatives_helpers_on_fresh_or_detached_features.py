"""Look-alikes of a second backward through a helper's result: the helper cuts its
argument from the graph, the features are computed again after the first backward, the
first backward keeps the graph, the helper builds a new graph from a detached copy, and the
pix2pix twin that detaches the fake image for the discriminator (the library's own code).
The detaching helper is no second backward, but it is GG109's: it forces requires_grad on
its detached result, so the backward on what it returns runs and trains nothing.

Sources: https://github.com/facebookresearch/pytorch_GAN_zoo/issues/83 (fixed by summing
the losses, pull request 85) and https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/439
(`fake_B.detach()` in `backward_D`).
"""

import torch
from torch import nn


def diversity_of_detached(feats):
    centred = feats.detach() - feats.detach().mean(0, keepdim=True)
    return (centred @ centred.t()).abs().mean().requires_grad_()  # expect: GG109


def diversity(feats):
    centred = feats - feats.mean(0, keepdim=True)
    return (centred @ centred.t()).abs().mean()


class Gan:
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 4))
        self.features = nn.Sequential(nn.Linear(4, 5), nn.LeakyReLU(0.2))
        self.head = nn.Linear(5, 1)
        self.optimizerG = torch.optim.Adam(self.netG.parameters(), lr=1e-3)

    def step_detached_helper(self, noise):
        feats = self.features(self.netG(noise))
        (-self.head(feats).mean()).backward()
        diversity_of_detached(feats).backward()

    def step_features_again(self, noise):
        feats = self.features(self.netG(noise))
        (-self.head(feats).mean()).backward()
        feats = self.features(self.netG(noise))
        diversity(feats).backward()

    def step_retained(self, noise):
        feats = self.features(self.netG(noise))
        (-self.head(feats).mean()).backward(retain_graph=True)
        diversity(feats).backward()

    def step_summed(self, noise):
        feats = self.features(self.netG(noise))
        loss = -self.head(feats).mean() + diversity(feats)
        loss.backward()


class Pix2PixModel:
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
        self.netD = nn.Sequential(nn.Linear(8, 1))
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=2e-4)
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=2e-4)
        self.criterion = nn.BCEWithLogitsLoss()

    def set_input(self, real_A, real_B):
        self.real_A = real_A
        self.real_B = real_B

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def backward_D(self):
        pred_fake = self.netD(torch.cat((self.real_A, self.fake_B.detach()), 1))
        loss_D_fake = self.criterion(pred_fake, torch.zeros_like(pred_fake))
        pred_real = self.netD(torch.cat((self.real_A, self.real_B), 1))
        loss_D_real = self.criterion(pred_real, torch.ones_like(pred_real))
        self.loss_D = (loss_D_fake + loss_D_real) * 0.5
        self.loss_D.backward()

    def backward_G(self):
        pred_fake = self.netD(torch.cat((self.real_A, self.fake_B), 1))
        self.loss_G = self.criterion(pred_fake, torch.ones_like(pred_fake))
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()


if __name__ == "__main__":
    gan = Gan()
    for step in (gan.step_detached_helper, gan.step_features_again, gan.step_retained, gan.step_summed):
        step(torch.randn(4, 3))
    model = Pix2PixModel()
    model.set_input(torch.randn(2, 4), torch.randn(2, 4))
    model.optimize_parameters()
