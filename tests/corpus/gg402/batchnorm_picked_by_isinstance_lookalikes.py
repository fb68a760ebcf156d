"""Look-alikes of normalisation layers picked out of a model by `isinstance` (see
batchnorm_picked_by_isinstance_asked_for_gradients.py): all of them run.

Freezing or unfreezing the affine weights of the BatchNorm layers found by `modules()`
(floating point parameters), LayerNorm layers (no buffers), and the layers that are not
BatchNorm (`not isinstance`) whose parameters are all floating point. The pattern of TENT's
`configure_model` (https://github.com/DequanWang/tent/blob/master/tent.py).
"""

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.LayerNorm([8, 8, 8])
        )
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        return self.head(self.features(x).mean((2, 3)))


def configure(model):
    model.requires_grad_(False)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.weight.requires_grad = True
            m.bias.requires_grad_(True)
            for t in m.parameters():
                t.requires_grad_(True)
        elif isinstance(m, nn.LayerNorm):
            for t in m.state_dict(keep_vars=True).values():
                t.requires_grad_(True)


def thaw_the_rest(model):
    for name, m in model.named_children():
        if not isinstance(m, nn.BatchNorm2d):
            for p in m.parameters():
                p.requires_grad_(True)


if __name__ == "__main__":
    net = Net()
    configure(net)
    thaw_the_rest(net)
    net(torch.randn(2, 3, 8, 8)).sum().backward()
    print("ok")
