"""A restored image scored by the critic through a loss method, without a detach (GG202).

`DeblurModel.forward` keeps `self.restored = self.generator(self.blurred)`. `backward_D`
hands the critic's score of `self.restored` (not detached) to the helper method
`adversarial`, and backpropagates: that backward runs through the generator too and frees
what it saved. `backward_G` scores `self.restored` again and backpropagates through the
same generator graph: "Trying to backward through the graph a second time" (checked with
torch 2.13.0 below). The helper computes its loss from its argument, so the result still
runs through the graph `self.restored` came with.

Look-alike: the same model scoring `self.restored.detach()` in `backward_D`.

Modelled on KupynOrest/DeblurGAN#56 (a conditional GAN whose discriminator step freed the
generator's graph, then the generator step backpropagated through it).
"""

import torch
from torch import nn


class DeblurModel:
    def __init__(self):
        self.generator = nn.Sequential(nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 6))
        self.critic = nn.Linear(6, 1)
        self.criterion = nn.BCEWithLogitsLoss()
        self.opt_g = torch.optim.Adam(self.generator.parameters(), lr=1e-3)
        self.opt_d = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def set_input(self, blurred, sharp):
        self.blurred = blurred
        self.sharp = sharp

    def forward(self):
        self.restored = self.generator(self.blurred)

    def adversarial(self, score, real):
        target = torch.ones_like(score) if real else torch.zeros_like(score)
        return self.criterion(score, target)

    def backward_D(self):
        fake = self.adversarial(self.critic(self.restored), False)
        real = self.adversarial(self.critic(self.sharp), True)
        self.loss_d = 0.5 * (fake + real)
        self.loss_d.backward()  # expect: GG202

    def backward_G(self):
        self.loss_g = self.adversarial(self.critic(self.restored), True)
        self.loss_g = self.loss_g + (self.restored - self.sharp).abs().mean()
        self.loss_g.backward()

    def optimize(self):
        self.forward()
        self.opt_d.zero_grad()
        self.backward_D()
        self.opt_d.step()
        self.opt_g.zero_grad()
        self.backward_G()
        self.opt_g.step()


class DetachedDeblurModel:
    def __init__(self):
        self.generator = nn.Sequential(nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 6))
        self.critic = nn.Linear(6, 1)
        self.criterion = nn.BCEWithLogitsLoss()
        self.opt_g = torch.optim.Adam(self.generator.parameters(), lr=1e-3)
        self.opt_d = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def set_input(self, blurred, sharp):
        self.blurred = blurred
        self.sharp = sharp

    def forward(self):
        self.restored = self.generator(self.blurred)

    def adversarial(self, score, real):
        target = torch.ones_like(score) if real else torch.zeros_like(score)
        return self.criterion(score, target)

    def backward_D(self):
        fake = self.adversarial(self.critic(self.restored.detach()), False)
        real = self.adversarial(self.critic(self.sharp), True)
        self.loss_d = 0.5 * (fake + real)
        self.loss_d.backward()

    def backward_G(self):
        self.loss_g = self.adversarial(self.critic(self.restored), True)
        self.loss_g = self.loss_g + (self.restored - self.sharp).abs().mean()
        self.loss_g.backward()

    def optimize(self):
        self.forward()
        self.opt_d.zero_grad()
        self.backward_D()
        self.opt_d.step()
        self.opt_g.zero_grad()
        self.backward_G()
        self.opt_g.step()


def main():
    torch.manual_seed(0)
    blurred, sharp = torch.randn(4, 6), torch.randn(4, 6)
    model = DeblurModel()
    model.set_input(blurred, sharp)
    try:
        model.optimize()
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the freed generator graph to be refused")
    detached = DetachedDeblurModel()
    detached.set_input(blurred, sharp)
    detached.optimize()


if __name__ == "__main__":
    main()
