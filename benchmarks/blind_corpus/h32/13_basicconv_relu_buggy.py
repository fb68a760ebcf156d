"""SAM2-UNet style receptive-field block whose BasicConv2d drops its activation.

Modelled on: https://github.com/WZH0120/SAM2-UNet/issues/6

The reporter noticed that ``BasicConv2d`` (the building block of the RFB
modules in SAM2-UNet) owns a ReLU but never uses it ("should there be
``x = self.relu(x)`` here?").  This version shows the closely related slip of
*calling* the activation in ``forward`` without assigning its result: the
ReLU is not in-place, so its output is thrown away and every BasicConv2d stays
linear.  The check shows negative activations where ReLU outputs are expected.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicConv2d(nn.Module):
    def __init__(self, in_planes, out_planes, kernel_size, stride=1, padding=0, dilation=1):
        super().__init__()
        self.conv = nn.Conv2d(in_planes, out_planes, kernel_size=kernel_size, stride=stride,
                              padding=padding, dilation=dilation, bias=False)
        self.bn = nn.BatchNorm2d(out_planes)
        self.relu = nn.ReLU()

    def forward(self, x):
        x = self.conv(x)
        x = self.bn(x)
        self.relu(x)  # bug: GG602
        return x


class RFB_modified(nn.Module):
    def __init__(self, in_channel, out_channel):
        super().__init__()
        self.branch0 = nn.Sequential(BasicConv2d(in_channel, out_channel, 1))
        self.branch1 = nn.Sequential(
            BasicConv2d(in_channel, out_channel, 1),
            BasicConv2d(out_channel, out_channel, kernel_size=(1, 3), padding=(0, 1)),
            BasicConv2d(out_channel, out_channel, kernel_size=(3, 1), padding=(1, 0)),
            BasicConv2d(out_channel, out_channel, 3, padding=3, dilation=3))
        self.branch2 = nn.Sequential(
            BasicConv2d(in_channel, out_channel, 1),
            BasicConv2d(out_channel, out_channel, 3, padding=5, dilation=5))
        self.conv_cat = BasicConv2d(3 * out_channel, out_channel, 3, padding=1)
        self.conv_res = BasicConv2d(in_channel, out_channel, 1)

    def forward(self, x):
        x0 = self.branch0(x)
        x1 = self.branch1(x)
        x2 = self.branch2(x)
        x_cat = self.conv_cat(torch.cat((x0, x1, x2), 1))
        return F.relu(x_cat + self.conv_res(x))


class Decoder(nn.Module):
    def __init__(self, channels, mid):
        super().__init__()
        self.rfbs = nn.ModuleList([RFB_modified(c, mid) for c in channels])
        self.head = nn.Conv2d(mid, 1, 1)

    def forward(self, feats):
        out = None
        for f, rfb in zip(reversed(feats), reversed(self.rfbs)):
            y = rfb(f)
            out = y if out is None else y + F.interpolate(out, size=y.shape[-2:], mode="bilinear", align_corners=False)
        return self.head(out)


def fake_encoder_features(batch, channels, size, g):
    return [torch.randn(batch, c, size // (2 ** i), size // (2 ** i), generator=g) for i, c in enumerate(channels)]


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--channels", type=int, nargs="+", default=[8, 12, 16])
    p.add_argument("--mid", type=int, default=8)
    p.add_argument("--size", type=int, default=16)
    p.add_argument("--batch", type=int, default=2)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = get_args([])
    decoder = Decoder(args.channels, args.mid)
    feats = fake_encoder_features(args.batch, args.channels, args.size, torch.Generator().manual_seed(0))
    mask = decoder(feats)
    mask.mean().backward()
    block = decoder.rfbs[0].branch0[0]
    act = block(feats[0])
    if (act < 0).any():
        print(f"BUGGY: BasicConv2d output has negative values (min {act.min().item():.3f}); ReLU result was discarded")
    else:
        print("activations are rectified")
