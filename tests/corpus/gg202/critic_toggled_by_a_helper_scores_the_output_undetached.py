"""A critic switched on and off by a helper scores the generated image undetached (GG202).

`ColorizeModel.forward` keeps `self.colored = self.painter(self.gray)`, with the gray images
taken from a batch dict. `optimize` makes the critic trainable with a static helper
(`set_trainable(self.critic, True)`), runs `backward_critic`, freezes the critic again and
runs `backward_painter`. `backward_critic` scores the pair of gray and colored images
without detaching `self.colored`, so its backward runs through the painter as well and frees
what the painter saved. `backward_painter` scores `self.colored` again and backpropagates
through that freed graph: "Trying to backward through the graph a second time" (checked
with torch 2.13.0 below).

Inside the two steps whether the critic's score requires grad is not known (the critic may
be frozen at that point, and the gray images come from the caller). A backward that
returns ran from a root that required grad, so the first one still freed the painter's
graph, and the second certainly runs through it.

Look-alike: the same model detaching `self.colored` in `backward_critic`.

Modelled on junyanz/pytorch-CycleGAN-and-pix2pix#356 (a discriminator step that raised
"Trying to backward through the graph a second time" in a CycleGAN-style model).
"""

import torch
from torch import nn


def build_critic(width):
    return nn.Sequential(
        nn.Conv2d(4, width, 3, padding=1), nn.LeakyReLU(0.2), nn.Conv2d(width, 1, 3)
    )


def build_painter(width):
    return nn.Sequential(
        nn.Conv2d(1, width, 3, padding=1), nn.ReLU(), nn.Conv2d(width, 3, 3, padding=1)
    )


class ColorizeModel:
    def __init__(self, width=4):
        self.painter = build_painter(width)
        self.critic = build_critic(width)
        self.bce = nn.BCEWithLogitsLoss()
        self.opt_painter = torch.optim.Adam(self.painter.parameters(), lr=1e-3)
        self.opt_critic = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    @staticmethod
    def set_trainable(net, flag):
        for p in net.parameters():
            p.requires_grad = flag

    def set_input(self, batch):
        self.gray, self.color = batch["gray"], batch["color"]

    def forward(self):
        self.colored = self.painter(self.gray)

    def adversarial(self, score, real):
        target = torch.ones_like(score) if real else torch.zeros_like(score)
        return self.bce(score, target)

    def backward_critic(self):
        fake = self.adversarial(self.critic(torch.cat((self.gray, self.colored), 1)), False)
        real = self.adversarial(self.critic(torch.cat((self.gray, self.color), 1)), True)
        self.loss_critic = 0.5 * (fake + real)
        self.loss_critic.backward()  # expect: GG202

    def backward_painter(self):
        score = self.critic(torch.cat((self.gray, self.colored), 1))
        self.loss_painter = self.adversarial(score, True) + (self.colored - self.color).abs().mean()
        self.loss_painter.backward()

    def optimize(self, batch):
        self.set_input(batch)
        self.forward()
        self.set_trainable(self.critic, True)
        self.opt_critic.zero_grad()
        self.backward_critic()
        self.opt_critic.step()
        self.set_trainable(self.critic, False)
        self.opt_painter.zero_grad()
        self.backward_painter()
        self.opt_painter.step()


class DetachedColorizeModel(ColorizeModel):
    def backward_critic(self):
        fake_pair = torch.cat((self.gray, self.colored.detach()), 1)
        fake = self.adversarial(self.critic(fake_pair), False)
        real = self.adversarial(self.critic(torch.cat((self.gray, self.color), 1)), True)
        self.loss_critic = 0.5 * (fake + real)
        self.loss_critic.backward()


def main():
    torch.manual_seed(0)
    batch = {"gray": torch.randn(2, 1, 8, 8), "color": torch.randn(2, 3, 8, 8)}
    try:
        ColorizeModel().optimize(batch)
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the freed painter graph to be refused")
    DetachedColorizeModel().optimize(batch)


if __name__ == "__main__":
    main()
