"""GG302 - in-place add into a ReLU output that autograd saved for backward.

Multi-class object counting with an FPN head. Each lateral branch is
conv + BN + ReLU, and the top-down pathway merges levels with
``laterals[i - 1] += F.interpolate(laterals[i], ...)``. ReLU saves its output to
compute its gradient; the ``+=`` overwrites that saved output in place, so
loss.backward() raises
  RuntimeError: one of the variables needed for gradient computation has been
  modified by an inplace operation: [torch.FloatTensor [2, 16, 8, 8]], which is
  output 0 of Relu, is at version 1; expected version 0 instead. ...

Modelled on: https://github.com/lyongo/NWPU-MOC/issues/4
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

cfg = {
    "num_classes": 3,
    "in_channels": [8, 16, 32],
    "fpn_channels": 16,
    "img_size": 64,
    "batch_size": 2,
    "max_epoch": 1,
    "lr": 1e-4,
    "ckpt_dir": tempfile.mkdtemp(prefix="moc_"),
}


def conv_bn_relu(in_ch, out_ch, k=3, stride=1):
    return nn.Sequential(nn.Conv2d(in_ch, out_ch, k, stride, k // 2, bias=False),
                         nn.BatchNorm2d(out_ch), nn.ReLU(inplace=False))


class Backbone(nn.Module):
    def __init__(self, chans):
        super().__init__()
        self.s1 = nn.Sequential(conv_bn_relu(3, chans[0], stride=2), conv_bn_relu(chans[0], chans[0], stride=2))
        self.s2 = conv_bn_relu(chans[0], chans[1], stride=2)
        self.s3 = conv_bn_relu(chans[1], chans[2], stride=2)

    def forward(self, x):
        c1 = self.s1(x)
        c2 = self.s2(c1)
        c3 = self.s3(c2)
        return [c1, c2, c3]


class FPN_Head(nn.Module):
    def __init__(self, in_channels, channels, num_classes):
        super().__init__()
        self.lateral_convs = nn.ModuleList([conv_bn_relu(c, channels, k=1) for c in in_channels])
        self.fpn_convs = nn.ModuleList([conv_bn_relu(channels, channels) for _ in in_channels])
        self.density = nn.Conv2d(channels * len(in_channels), num_classes, 1)

    def forward(self, inputs):
        laterals = [conv(inputs[i]) for i, conv in enumerate(self.lateral_convs)]
        for i in range(len(laterals) - 1, 0, -1):
            prev_shape = laterals[i - 1].shape[2:]
            laterals[i - 1] += F.interpolate(laterals[i], size=prev_shape, mode="nearest")  # bug: GG302
        outs = [self.fpn_convs[i](laterals[i]) for i in range(len(laterals))]
        size = outs[0].shape[2:]
        outs = [outs[0]] + [F.interpolate(o, size=size, mode="bilinear", align_corners=False) for o in outs[1:]]
        return F.relu(self.density(torch.cat(outs, dim=1)))


class CountingNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.backbone = Backbone(cfg["in_channels"])
        self.head = FPN_Head(cfg["in_channels"], cfg["fpn_channels"], cfg["num_classes"])

    def forward(self, img):
        return self.head(self.backbone(img))


def make_loader(cfg):
    n, s = 4, cfg["img_size"]
    imgs = torch.randn(n, 3, s, s)
    dens = torch.rand(n, cfg["num_classes"], s // 4, s // 4) * 0.01
    return DataLoader(TensorDataset(imgs, dens), batch_size=cfg["batch_size"], shuffle=True)


def train(net, loader, optimizer, epoch):
    net.train()
    for i, (img, gt_map) in enumerate(loader):
        pred_map = net(img)
        loss = F.mse_loss(pred_map, gt_map, reduction="sum") / img.size(0)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        counts = pred_map.detach().sum(dim=(2, 3)).mean(0)
        print(f"[ep {epoch}][it {i}] loss {loss.item():.4f} counts {counts.tolist()}")


def main():
    torch.manual_seed(0)
    net = CountingNet(cfg)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg["lr"], weight_decay=1e-4)
    loader = make_loader(cfg)
    for epoch in range(cfg["max_epoch"]):
        train(net, loader, optimizer, epoch)
        torch.save(net.state_dict(), os.path.join(cfg["ckpt_dir"], f"ep_{epoch}.pth"))


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
