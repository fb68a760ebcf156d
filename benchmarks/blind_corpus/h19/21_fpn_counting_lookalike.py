"""GG302 look-alike - in-place adds on tensors autograd does not need unchanged.

Detection-style FPN neck in the usual layout: lateral branches are plain 1x1
convs (no activation), and the top-down merge is ``laterals[i - 1] += up(...)``.
A convolution saves its *input* and weight, not its output, so adding into the
conv output in place is fine. The residual blocks do ``out += identity`` on a
BatchNorm output (BN also saves its input, not its output) before the ReLU.
Looks like the saved-tensor in-place bug; runs cleanly.

Modelled on: https://github.com/lyongo/NWPU-MOC/issues/4
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPTS = {"in_channels": [8, 16, 32], "out_channels": 16, "num_classes": 2, "img": 64, "steps": 3}


class BasicBlock(nn.Module):
    def __init__(self, in_ch, out_ch, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_ch)
        self.down = nn.Sequential(nn.Conv2d(in_ch, out_ch, 1, stride, bias=False), nn.BatchNorm2d(out_ch))

    def forward(self, x):
        identity = self.down(x)
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return F.relu(out)


class FPN(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lateral_convs = nn.ModuleList([nn.Conv2d(c, out_channels, 1) for c in in_channels])
        self.fpn_convs = nn.ModuleList([nn.Conv2d(out_channels, out_channels, 3, padding=1) for _ in in_channels])

    def forward(self, inputs):
        laterals = [conv(inputs[i]) for i, conv in enumerate(self.lateral_convs)]
        for i in range(len(laterals) - 1, 0, -1):
            prev_shape = laterals[i - 1].shape[2:]
            laterals[i - 1] += F.interpolate(laterals[i], size=prev_shape, mode="nearest")
        return [self.fpn_convs[i](laterals[i]) for i in range(len(laterals))]


class Net(nn.Module):
    def __init__(self, o):
        super().__init__()
        c = o["in_channels"]
        self.stem = nn.Sequential(nn.Conv2d(3, c[0], 3, 2, 1), nn.ReLU())
        self.layer1 = BasicBlock(c[0], c[0], 2)
        self.layer2 = BasicBlock(c[0], c[1], 2)
        self.layer3 = BasicBlock(c[1], c[2], 2)
        self.neck = FPN(c, o["out_channels"])
        self.cls = nn.Conv2d(o["out_channels"], o["num_classes"], 1)

    def forward(self, x):
        c1 = self.layer1(self.stem(x))
        c2 = self.layer2(c1)
        c3 = self.layer3(c2)
        return [self.cls(p) for p in self.neck([c1, c2, c3])]


def main():
    torch.manual_seed(0)
    net = Net(OPTS)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    for step in range(OPTS["steps"]):
        x = torch.randn(2, 3, OPTS["img"], OPTS["img"])
        preds = net(x)
        loss = sum(F.binary_cross_entropy_with_logits(p, torch.rand_like(p)) for p in preds)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss={loss.item():.4f}")


if __name__ == "__main__":
    main()
    print("OK")
