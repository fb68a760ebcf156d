"""GG302: in-place ReLU on a tensor that the identity branch's convolution saved for backward.

Xception-style units apply "ReLU -> depthwise separable conv" at the start of the body,
with the activation built as nn.ReLU(inplace=True). The unit input `x` is first given to the
strided 1x1 identity convolution (which saves `x` to compute its weight gradient) and then
to the body, whose first in-place ReLU overwrites `x`. backward() finds the saved input at
a newer version.
Torch raises: RuntimeError: one of the variables needed for gradient computation has been
modified by an inplace operation: [torch.FloatTensor [...]], which is output 0 of
Relu, is at version 1; expected version 0 instead. ...

Modelled on: https://github.com/osmr/imgclsmob/issues/13
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class DwsConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.dw_conv = nn.Conv2d(in_channels, in_channels, 3, padding=1, groups=in_channels, bias=False)
        self.pw_conv = nn.Conv2d(in_channels, out_channels, 1, bias=False)

    def forward(self, x):
        return self.pw_conv(self.dw_conv(x))


class DwsConvBlock(nn.Module):
    """ReLU (optional) -> depthwise separable conv -> BN, as in Xception."""

    def __init__(self, in_channels, out_channels, activate):
        super().__init__()
        self.activate = activate
        if self.activate:
            self.activ = nn.ReLU(inplace=True)  # bug: GG302
        self.conv = DwsConv(in_channels, out_channels)
        self.bn = nn.BatchNorm2d(out_channels)

    def forward(self, x):
        if self.activate:
            x = self.activ(x)
        x = self.conv(x)
        return self.bn(x)


class XceptionUnit(nn.Module):
    def __init__(self, in_channels, out_channels, strides, reps, start_with_relu=True):
        super().__init__()
        self.resize_identity = (in_channels != out_channels) or (strides != 1)
        if self.resize_identity:
            self.identity_conv = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, stride=strides, bias=False),
                nn.BatchNorm2d(out_channels))
        self.body = nn.Sequential()
        for i in range(reps):
            cin = in_channels if i == 0 else out_channels
            self.body.add_module(f"block{i + 1}", DwsConvBlock(cin, out_channels,
                                                               activate=(start_with_relu or i != 0)))
        if strides != 1:
            self.body.add_module("pool", nn.MaxPool2d(3, stride=strides, padding=1))

    def forward(self, x):
        if self.resize_identity:
            identity = self.identity_conv(x)
        else:
            identity = x
        x = self.body(x)
        return x + identity


class TinyXception(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.init_block = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False),
                                        nn.BatchNorm2d(16), nn.ReLU(inplace=True))
        self.stage1 = XceptionUnit(16, 32, strides=2, reps=2, start_with_relu=False)
        self.stage2 = XceptionUnit(32, 64, strides=2, reps=2, start_with_relu=True)
        self.final = nn.Sequential(nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1))
        self.output = nn.Linear(64, num_classes)

    def forward(self, x):
        x = self.init_block(x)
        x = self.stage2(self.stage1(x))
        return self.output(self.final(x).flatten(1))


def train(train_loader, model, criterion, optimizer, epoch):
    model.train()
    for i, (images, target) in enumerate(train_loader):
        output = model(images)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} done, last loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 3, 32, 32), torch.randint(0, 4, (16,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = TinyXception()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=2)
    for epoch in range(2):
        train(loader, model, criterion, optimizer, epoch)
        lr_scheduler.step()


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
