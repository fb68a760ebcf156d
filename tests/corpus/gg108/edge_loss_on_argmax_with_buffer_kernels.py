"""An edge-alignment loss computed on the argmax of the logits (GG108).

The loss module builds a Sobel kernel in `__init__` as a local tensor and registers it (and
its transpose) as buffers. `forward` takes `logits.argmax(1)` as the predicted mask and
convolves it with the kernels: the loss depends on the model only through argmax, which
has no gradient, and `loss.backward()` raises "element 0 of tensors does not require grad"
(checked with torch 2.13.0 below). The kernels have no history because the local they come
from is bound once in `__init__`, to a tensor made from literals.

Look-alikes: the same loss on the softmax probability of the foreground class, and a module
whose kernel local is re-bound from a parameter (its history is then unknown).

Modelled on the hair-matting gradient loss of the team's blind corpus (h12), an
image-gradient loss applied to a hard mask.
"""

import torch
import torch.nn.functional as F
from torch import nn


class EdgeLoss(nn.Module):
    def __init__(self):
        super().__init__()
        kernel = torch.tensor([[1.0, 0.0, -1.0], [2.0, 0.0, -2.0], [1.0, 0.0, -1.0]]).view(
            1, 1, 3, 3
        )
        self.register_buffer("kx", kernel)
        self.register_buffer("ky", kernel.transpose(2, 3).contiguous())

    def edges(self, mask):
        return F.conv2d(mask, self.kx, padding=1).abs() + F.conv2d(mask, self.ky, padding=1).abs()

    def forward(self, logits):
        mask = logits.argmax(1, keepdim=True).float()  # expect: GG108
        return self.edges(mask).mean()


class SoftEdgeLoss(EdgeLoss):
    def forward(self, logits):
        mask = logits.softmax(1)[:, 1:2]
        return self.edges(mask).mean()


class LearnedEdgeLoss(nn.Module):
    def __init__(self, kernel):
        super().__init__()
        base = torch.ones(1, 1, 3, 3)
        base = base * kernel
        self.register_buffer("k", base)

    def forward(self, logits):
        mask = logits.argmax(1, keepdim=True).float()
        return F.conv2d(mask, self.k, padding=1).mean()


def step(net, loss_fn, images):
    loss = loss_fn(net(images))
    loss.backward()


def main():
    net = nn.Conv2d(3, 2, 3, padding=1)
    images = torch.randn(2, 3, 8, 8)
    step(net, SoftEdgeLoss(), images)
    weight = torch.ones(1, 1, 3, 3, requires_grad=True)
    step(net, LearnedEdgeLoss(weight), images)
    try:
        step(net, EdgeLoss(), images)
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("expected the argmax loss to have no graph")


def train_hard(net, images):
    loss = EdgeLoss()(net(images))
    loss.backward()


if __name__ == "__main__":
    main()
    try:
        train_hard(nn.Conv2d(3, 2, 3, padding=1), torch.randn(2, 3, 8, 8))
    except RuntimeError:
        pass
    else:
        raise AssertionError("expected the argmax loss to have no graph")
