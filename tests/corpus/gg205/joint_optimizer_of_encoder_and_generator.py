"""An adversarial autoencoder whose encoder and generator share one optimizer, built from
both modules' parameter lists: stepping it between the retained backward of the
encoder/generator loss and the backward of the latent discriminator's loss changes weights
the encoder's graph saved (GG205).

Modelled on mattans/AgeProgression (model.py, `Net.teach`, issue #23): `eg_optimizer =
Adam(list(self.E.parameters()) + list(self.G.parameters()))` is stepped after
`loss.backward(retain_graph=True)`, then `dz_loss_tot.backward()` runs through
`d_z = self.Dz(z)` with `z = self.E(images)`, and raises "one of the variables needed for
gradient computation has been modified by an inplace operation". The encoder names its
layers with `nn.Sequential(OrderedDict([...]))`, as that code does.

Look-alikes that run: the same trainer stepping the joint optimizer after both backward
passes, and one whose latent discriminator judges `z.detach()`. Clearing the gradients
through each module's own `zero_grad()` instead of the joint optimizer's is fine too.
"""

from collections import OrderedDict

import torch
import torch.nn.functional as F
from torch import nn


def encoder():
    return nn.Sequential(
        OrderedDict(
            [
                ("fc_1", nn.Linear(8, 6)),
                ("tanh_1", nn.Tanh()),
                ("fc_2", nn.Linear(6, 3)),
                ("tanh_2", nn.Tanh()),
            ]
        )
    )


class Trainer:
    def __init__(self):
        self.E = encoder()
        self.G = nn.Sequential(nn.Linear(3, 8), nn.Tanh())
        self.Dz = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
        self.eg_optimizer = torch.optim.Adam(list(self.E.parameters()) + list(self.G.parameters()))
        self.dz_optimizer = torch.optim.Adam(self.Dz.parameters())

    def teach(self, batches):
        for images in batches:
            z = self.E(images)
            generated = self.G(z)
            d_z = self.Dz(z)
            eg_loss = F.l1_loss(generated, images)
            ez_loss = F.binary_cross_entropy_with_logits(d_z, torch.ones_like(d_z))
            dz_loss = F.binary_cross_entropy_with_logits(d_z, torch.zeros_like(d_z))
            self.eg_optimizer.zero_grad()
            loss = eg_loss + ez_loss
            loss.backward(retain_graph=True)
            self.eg_optimizer.step()  # expect: GG205
            self.dz_optimizer.zero_grad()
            dz_loss.backward()
            self.dz_optimizer.step()


class SteppingLast:
    def __init__(self):
        self.E = encoder()
        self.G = nn.Sequential(nn.Linear(3, 8), nn.Tanh())
        self.Dz = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
        self.eg_optimizer = torch.optim.Adam(list(self.E.parameters()) + list(self.G.parameters()))
        self.dz_optimizer = torch.optim.Adam(self.Dz.parameters())

    def teach(self, batches):
        for images in batches:
            z = self.E(images)
            d_z = self.Dz(z)
            loss = F.l1_loss(self.G(z), images) + F.softplus(-d_z).mean()
            dz_loss = F.softplus(d_z).mean()
            self.E.zero_grad()
            self.G.zero_grad()
            loss.backward(retain_graph=True)
            self.dz_optimizer.zero_grad()
            dz_loss.backward()
            self.eg_optimizer.step()
            self.dz_optimizer.step()


class DetachedLatent:
    def __init__(self):
        self.E = encoder()
        self.G = nn.Sequential(nn.Linear(3, 8), nn.Tanh())
        self.Dz = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
        self.eg_optimizer = torch.optim.Adam(list(self.E.parameters()) + list(self.G.parameters()))
        self.dz_optimizer = torch.optim.Adam(self.Dz.parameters())

    def teach(self, batches):
        for images in batches:
            z = self.E(images)
            loss = F.l1_loss(self.G(z), images)
            d_z = self.Dz(z.detach())
            dz_loss = F.softplus(d_z).mean()
            self.eg_optimizer.zero_grad()
            loss.backward(retain_graph=True)
            self.eg_optimizer.step()
            self.dz_optimizer.zero_grad()
            dz_loss.backward()
            self.dz_optimizer.step()


if __name__ == "__main__":
    batches = [torch.randn(5, 8) for _ in range(2)]
    try:
        Trainer().teach(batches)
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error), error
    else:
        raise AssertionError("the joint step did not break the discriminator's backward")
    SteppingLast().teach(batches)
    DetachedLatent().teach(batches)
    print("joint step between the passes raised; stepping last and a detached latent ran")
