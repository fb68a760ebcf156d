"""A spatial attention branch whose map goes through a ReLU and then gets its border rows
and columns set to zero by index assignment (`att[:, :, :, 0] = 0`): autograd saved the
ReLU output, and `loss.backward()` raises "one of the variables needed for gradient
computation has been modified by an inplace operation: [...] which is output 0 of
ReluBackward0, is at version 4". The fix in the thread: `att = att.clone()` first.

Source (rewritten in our own words, structure kept): https://github.com/AggMan96/RK-Net/issues/9

The change sits under `if self.polish:`. Every construction of the module in the file
leaves `polish` at its default, True, so the test is certain and the change happens on every
call (a branch whose test is not known would make it only possible).
"""

import torch
import torch.nn.functional as F
from torch import nn


class BorderAttention(nn.Module):
    def __init__(self, channels: int = 4, polish: bool = True) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, 1, 3, padding=1)
        self.polish = polish

    def forward(self, x):
        att = F.relu(self.conv(x))
        if self.polish:
            att[:, :, :, 0] = 0  # expect: GG302
            att[:, :, :, -1] = 0
        return x * att


def train(model, optimizer, loader):
    model.train()
    for images, targets in loader:
        optimizer.zero_grad()
        loss = F.mse_loss(model(images), targets)
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    data = [(torch.randn(2, 4, 6, 6), torch.randn(2, 4, 6, 6))]
    net = BorderAttention()
    try:
        train(net, torch.optim.SGD(net.parameters(), lr=0.1), data)
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")
