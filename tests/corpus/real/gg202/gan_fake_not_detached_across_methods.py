"""A pix2pix-style model object: `forward()` stores the generated image on `self.fake_B`,
`backward_D()` scores it with the discriminator WITHOUT `.detach()` and backpropagates,
then `backward_G()` scores it again and backpropagates through the generator a second
time. The first backward freed the generator's graph, so the second raises "Trying to
backward through the graph a second time". The library's own code detaches the fake image
in `backward_D` ("stop backprop to the generator by detaching fake_B").

Sources (rewritten in our own words, structure kept):
https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/439 and
https://github.com/KupynOrest/DeblurGAN/issues/56

Caught through facts of the methods' summaries: `backward_D`'s backward runs through, and
frees, the graph `self.fake_B` had when it was called (`FunctionSummary.state_backwards`,
`frees_state`); `optimize_parameters` knows that graph (the one `forward()` left), so it
sees `backward_G`'s backward run through it again. Reported at the backward that frees it.
"""

import torch
from torch import nn


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
        pred_fake = self.netD(torch.cat((self.real_A, self.fake_B), 1))
        loss_D_fake = self.criterion(pred_fake, torch.zeros_like(pred_fake))
        pred_real = self.netD(torch.cat((self.real_A, self.real_B), 1))
        loss_D_real = self.criterion(pred_real, torch.ones_like(pred_real))
        self.loss_D = (loss_D_fake + loss_D_real) * 0.5
        self.loss_D.backward()  # expect: GG202

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
    model = Pix2PixModel()
    model.set_input(torch.randn(2, 4), torch.randn(2, 4))
    try:
        model.optimize_parameters()
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the second-backward error")
