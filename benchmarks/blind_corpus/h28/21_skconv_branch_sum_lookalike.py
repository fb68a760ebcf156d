"""Restoration network built from residual blocks that add the skip in place.

Modelled on: https://github.com/aupendu/zero-restore/issues/7 (counterpart)

Looks like the SKConv crash: a layer output is accumulated into with += inside
forward() and backward() runs afterwards.  Here the tensor modified in place
is a BatchNorm output, which BatchNorm's backward does not need (it saves its
input and batch statistics), and the ReLU is applied only after the addition,
so nothing autograd saved is overwritten.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


class ResidualBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.conv1 = nn.Conv2d(ch, ch, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(ch)
        self.conv2 = nn.Conv2d(ch, ch, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(ch)
        self.relu = nn.ReLU()

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


class RestorationNet(nn.Module):
    def __init__(self, ch=8, blocks=2):
        super().__init__()
        self.head = nn.Conv2d(3, ch, 3, 1, 1)
        self.body = nn.Sequential(*[ResidualBlock(ch) for _ in range(blocks)])
        self.tail = nn.Conv2d(ch, 3, 3, 1, 1)

    def forward(self, x):
        return torch.sigmoid(self.tail(self.body(self.head(x))))


def restore(image, iters=3, lr=1e-3):
    net = RestorationNet()
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    for _ in range(iters):
        optimizer.zero_grad()
        loss = F.l1_loss(net(image), image)
        loss.backward()
        optimizer.step()
    return net


if __name__ == "__main__":
    torch.manual_seed(0)
    restore(torch.rand(2, 3, 16, 16))
    print("OK")
