"""Look-alikes of a phase that steps the wrong optimizer: every step here applies gradients
of a loss that reaches the model the optimizer holds.

* `two_phases`: each phase steps its own model's optimizer (the corrected form).
* `two_updates`: the generator-like model takes two updates per batch, the second on a
  loss that runs it again.
* `extra_term`: the second step follows a term that never reaches `model`, but the model's
  own loss was backpropagated before, in the enclosing block, with nothing clearing or
  applying its gradients in between: that step does train `model`.

Written for this corpus (the shape of
https://github.com/zhaoyuzhi/DeblurGANv2-MobileNetv123-PyTorch/issues/7, done right); every
function runs under torch 2.13.0 and trains every model it builds.
"""

import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.encode = nn.Sequential(nn.Linear(6, width), nn.ReLU())
        self.decode = nn.Linear(width, 6)

    def forward(self, x):
        features = self.encode(x)
        return features, self.decode(features)


class Probe(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.head = nn.Linear(width, 3)

    def forward(self, features):
        return self.head(features)


def two_phases():
    backbone = Backbone(12)
    probe = Probe(12)
    backbone_opt = torch.optim.SGD(backbone.parameters(), lr=0.1)
    probe_opt = torch.optim.SGD(probe.parameters(), lr=0.1)
    start = probe.head.weight.detach().clone()
    for batch in range(3):
        x = torch.randn(16, 6)
        labels = torch.randint(0, 3, (16,))
        backbone_opt.zero_grad()
        features, recon = backbone(x)
        recon_loss = (recon - x).pow(2).mean()
        recon_loss.backward()
        backbone_opt.step()
        probe_opt.zero_grad()
        probe_loss = nn.functional.cross_entropy(probe(features.detach()), labels)
        probe_loss.backward()
        probe_opt.step()
    assert not torch.equal(start, probe.head.weight)


def two_updates():
    model = Backbone(8)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    start = model.decode.weight.detach().clone()
    for batch in range(3):
        x = torch.randn(16, 6)
        opt.zero_grad()
        loss = (model(x)[1] - x).abs().mean()
        loss.backward()
        opt.step()
        again = (model(x)[1] - x).pow(2).mean()
        again.backward()
        opt.step()
    assert not torch.equal(start, model.decode.weight)


def extra_term():
    model = Backbone(8)
    probe = Probe(8)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    probe_opt = torch.optim.SGD(probe.parameters(), lr=0.1)
    start = model.decode.weight.detach().clone()
    for batch in range(4):
        x = torch.randn(16, 6)
        opt.zero_grad()
        probe_opt.zero_grad()
        features, recon = model(x)
        loss = (recon - x).pow(2).mean()
        loss.backward()
        if batch % 2 == 0:
            opt.step()
        else:
            extra = probe(features.detach()).pow(2).mean()
            extra.backward()
            opt.step()
            probe_opt.step()
    assert not torch.equal(start, model.decode.weight)


if __name__ == "__main__":
    torch.manual_seed(0)
    two_phases()
    two_updates()
    extra_term()
