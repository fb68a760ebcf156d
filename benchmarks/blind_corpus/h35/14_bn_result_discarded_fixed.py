"""Conv classifier whose batch-norm output is dropped in forward().

Modelled on: https://github.com/nntrainer/nntrainer/issues/771

The report: the batch-normalisation layer computed its normalised tensor
but never stored the result back into the variable that flows on, so in
inference the layer had no effect at all. The same mistake in PyTorch is
calling a normalisation module in forward() as a bare statement: the
module runs, its result is thrown away and the next layer sees the
un-normalised activations.

Fixed version: the normalised tensor is assigned back to x.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvBlock(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(out_ch)

    def forward(self, x):
        x = self.conv(x)
        x = self.bn(x)
        return F.relu(x)


class SmallNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.block1 = ConvBlock(3, 8)
        self.block2 = ConvBlock(8, 16)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = F.max_pool2d(self.block1(x), 2)
        x = self.block2(x)
        return self.fc(self.pool(x).flatten(1))


def warm_up(model, steps=3):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(0)
    for _ in range(steps):
        x = torch.randn(8, 3, 16, 16, generator=g) * 5 + 3
        y = torch.randint(0, 5, (8,), generator=g)
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


def block_output_is_normalised(block, x):
    with torch.no_grad():
        pre = block.conv(x)
        out = block(x)
    expected = F.relu(block.bn(pre))
    return torch.allclose(out, expected, atol=1e-5)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = SmallNet()
    warm_up(net)
    net.eval()
    x = torch.randn(4, 3, 16, 16) * 5 + 3
    if not block_output_is_normalised(net.block1, x):
        print("BUGGY: BatchNorm result is discarded; block output is not normalised")
    else:
        print("FIXED: ok")
