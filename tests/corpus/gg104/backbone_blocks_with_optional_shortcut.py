"""Fine-tuning freezes the whole network, head included (GG104).

Modelled on https://github.com/cfzd/Ultra-Fast-Lane-Detection/issues/282: a user who wanted
to fine-tune only part of a pretrained lane detector added a loop setting `requires_grad =
False` on every parameter of the model, and the first backward() raised "element 0 of tensors
does not require grad". The backbone is built from residual blocks whose shortcut projection
exists only when the block changes the resolution (`if stride != 1: self.shortcut = ...`), as
ResNet blocks are written: the block still owns every layer it runs. The look-alike freezes
the backbone only, so the head trains.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, channels_in, channels_out, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(channels_in, channels_out, 3, stride=stride, padding=1)
        self.conv2 = nn.Conv2d(channels_out, channels_out, 3, padding=1)
        if stride != 1 or channels_in != channels_out:
            self.shortcut = nn.Conv2d(channels_in, channels_out, 1, stride=stride)
        else:
            self.shortcut = nn.Identity()

    def forward(self, x):
        out = self.conv2(F.relu(self.conv1(x)))
        return F.relu(out + self.shortcut(x))


class LaneNet(nn.Module):
    def __init__(self, lanes=2):
        super().__init__()
        self.backbone = nn.Sequential(Block(3, 8), Block(8, 16, stride=2))
        self.head = nn.Linear(16, lanes)

    def forward(self, x):
        features = self.backbone(x).mean(dim=(2, 3))
        return self.head(features)


def finetune_everything_frozen():
    net = LaneNet()
    for param in net.parameters():  # expect: GG104
        param.requires_grad = False
    optimizer = torch.optim.SGD(net.head.parameters(), lr=0.1)
    images, targets = torch.randn(4, 3, 16, 16), torch.randn(4, 2)
    loss = F.mse_loss(net(images), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def finetune_head():
    net = LaneNet()
    for param in net.backbone.parameters():
        param.requires_grad = False
    optimizer = torch.optim.SGD(net.head.parameters(), lr=0.1)
    images, targets = torch.randn(4, 3, 16, 16), torch.randn(4, 2)
    loss = F.mse_loss(net(images), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


if __name__ == "__main__":
    finetune_head()
    try:
        finetune_everything_frozen()
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("expected backward to fail")
    print("ok")
