"""GG605 look-alike - a zero_grad() sits between a backward() and a step(), but of another optimizer.

In the adversarial SR trainer the discriminator loss is backpropagated, then the
*generator's* optimizer is zeroed (the D loss leaked gradients into G through
the fake images) and the *discriminator's* optimizer steps. D's gradients are
untouched, so D trains; G is trained by its own loss afterwards.

Modelled on: https://github.com/LeiaLi/SRDiff/issues/15
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 3, 3, padding=1))

    def forward(self, lr):
        up = F.interpolate(lr, scale_factor=2, mode="bilinear", align_corners=False)
        return up + self.body(up)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 8, 4, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(8 * 8 * 8, 1))

    def forward(self, x):
        return self.net(x)


class GANTrainer:
    def __init__(self):
        self.G, self.D = Generator(), Discriminator()
        self.opt_g = torch.optim.Adam(self.G.parameters(), lr=1e-3)
        self.opt_d = torch.optim.Adam(self.D.parameters(), lr=1e-3)

    def step(self, hr, lr):
        fake = self.G(lr)
        real_logit, fake_logit = self.D(hr), self.D(fake)
        loss_d = (F.binary_cross_entropy_with_logits(real_logit, torch.ones_like(real_logit))
                  + F.binary_cross_entropy_with_logits(fake_logit, torch.zeros_like(fake_logit)))
        self.opt_d.zero_grad()
        loss_d.backward()
        self.opt_g.zero_grad()
        self.opt_d.step()

        fake = self.G(lr)
        adv = self.D(fake)
        loss_g = F.l1_loss(fake, hr) + 1e-2 * F.binary_cross_entropy_with_logits(adv, torch.ones_like(adv))
        self.opt_g.zero_grad()
        loss_g.backward()
        self.opt_g.step()
        return loss_d.item(), loss_g.item()


def main():
    torch.manual_seed(0)
    tr = GANTrainer()
    d_before = [p.detach().clone() for p in tr.D.parameters()]
    for it in range(3):
        hr = torch.rand(4, 3, 16, 16)
        ld, lg = tr.step(hr, F.avg_pool2d(hr, 2))
        print(f"it {it} loss_d {ld:.4f} loss_g {lg:.4f}")
    assert any(not torch.equal(a, b) for a, b in zip(d_before, tr.D.parameters()))


if __name__ == "__main__":
    main()
    print("OK")
