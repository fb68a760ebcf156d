"""Conv classifier that records intermediate features in forward().

Modelled on: https://github.com/nntrainer/nntrainer/issues/771 (counterpart)

Look-alike: forward() contains calls whose value is not assigned to `x`,
but each result is kept (appended to a feature list or stored on self for
a later auxiliary head), and the normalisation output is assigned, so no
module output is discarded.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(out_ch)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class FeatureNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.blocks = nn.ModuleList([Block(3, 8), Block(8, 16)])
        self.aux = nn.Conv2d(8, num_classes, 1)
        self.fc = nn.Linear(16, num_classes)
        self.aux_logits = None

    def forward(self, x, features=None):
        for i, block in enumerate(self.blocks):
            x = block(x)
            if features is not None:
                features.append(x)
            if i == 0:
                self.aux_logits = self.aux(x).mean((2, 3))
                x = F.max_pool2d(x, 2)
        return self.fc(x.mean((2, 3)))


if __name__ == "__main__":
    torch.manual_seed(0)
    net = FeatureNet()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    x = torch.randn(4, 3, 16, 16)
    y = torch.randint(0, 5, (4,))
    feats = []
    out = net(x, feats)
    loss = F.cross_entropy(out, y) + 0.3 * F.cross_entropy(net.aux_logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    assert len(feats) == 2 and net.aux.weight.grad is not None
    print("OK")
