"""Category GG302 - in-place change of a tensor that autograd saved for backward.

An Xception-style backbone for a small segmentation model. Each Block computes
its 1x1 skip projection from the block input first, then runs the separable-conv
stack, which starts with a shared nn.ReLU(inplace=True). The skip convolution
saved the input for its weight gradient; the in-place ReLU then overwrites that
same tensor, so loss.backward() fails with:
    RuntimeError: one of the variables needed for gradient computation has been
    modified by an inplace operation: [torch.FloatTensor [2, 8, 16, 16]], which is
    output 0 of Relu, is at version 2; expected version 1 instead. ...

Modelled on: https://github.com/mapillary/inplace_abn/issues/40
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class SeparableConv2d(nn.Module):
    def __init__(self, cin, cout, stride=1, dilation=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cin, 3, stride, dilation, dilation, groups=cin, bias=False)
        self.pointwise = nn.Conv2d(cin, cout, 1, bias=False)

    def forward(self, x):
        return self.pointwise(self.conv1(x))


class Block(nn.Module):
    def __init__(self, inplanes, planes, reps, stride=1, start_with_relu=True):
        super().__init__()
        if planes != inplanes or stride != 1:
            self.skip = nn.Conv2d(inplanes, planes, 1, stride=stride, bias=False)
            self.skipbn = nn.BatchNorm2d(planes)
        else:
            self.skip = None
        self.relu = nn.ReLU(inplace=True)
        rep = []
        filters = inplanes
        for _ in range(reps):
            rep += [self.relu, SeparableConv2d(filters, planes), nn.BatchNorm2d(planes)]
            filters = planes
        rep = rep[1:]
        if start_with_relu:
            rep.insert(0, self.relu)  # bug: GG302
        if stride != 1:
            rep.append(SeparableConv2d(planes, planes, stride=2))
        self.rep = nn.Sequential(*rep)

    def forward(self, inp):
        if self.skip is not None:
            skip = self.skipbn(self.skip(inp))
        else:
            skip = inp
        x = self.rep(inp)
        return x + skip


class MiniXception(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, 2, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.block1 = Block(8, 16, reps=2, stride=2, start_with_relu=True)
        self.block2 = Block(16, 16, reps=2, stride=1, start_with_relu=True)
        self.classifier = nn.Conv2d(16, n_classes, 1)

    def forward(self, x):
        size = x.shape[-2:]
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.block2(self.block1(x))
        return F.interpolate(self.classifier(x), size=size, mode="bilinear", align_corners=False)


def train_one_epoch(model, optimizer, batches):
    model.train()
    for it, (img, mask) in enumerate(batches):
        logits = model(img)
        loss = F.cross_entropy(logits, mask)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"iter {it}: loss {loss.item():.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = MiniXception()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    batches = [(torch.randn(2, 3, 32, 32), torch.randint(0, 3, (2, 32, 32))) for _ in range(2)]
    try:
        train_one_epoch(model, optimizer, batches)
    except RuntimeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        sys.exit(0)
    raise SystemExit("NO BUG")
