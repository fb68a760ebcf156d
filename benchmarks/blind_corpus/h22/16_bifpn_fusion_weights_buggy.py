"""Category GG301 - in-place operation on a leaf tensor that requires grad.

A BiFPN-style feature pyramid uses "fast normalized fusion": learnable per-input
weights (nn.Parameter) are passed through ReLU and normalised before mixing the
feature maps. The block reuses its memory-saving nn.ReLU(inplace=True) for the
fusion weights, so the ReLU tries to overwrite the Parameter itself and the very
first forward pass fails with:
    RuntimeError: a leaf Variable that requires grad is being used in an in-place
    operation.

Modelled on: https://github.com/zylo117/Yet-Another-EfficientDet-Pytorch/issues/503
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_CHANNELS = 16
NUM_CLASSES = 3


class SeparableConvBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.depthwise = nn.Conv2d(channels, channels, 3, padding=1, groups=channels, bias=False)
        self.pointwise = nn.Conv2d(channels, channels, 1)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x):
        return self.bn(self.pointwise(self.depthwise(x)))


class BiFPNLayer(nn.Module):
    def __init__(self, channels, epsilon=1e-4):
        super().__init__()
        self.epsilon = epsilon
        self.conv_p4_up = SeparableConvBlock(channels)
        self.conv_p3_out = SeparableConvBlock(channels)
        self.conv_p4_out = SeparableConvBlock(channels)
        self.p4_w1 = nn.Parameter(torch.ones(2))
        self.p3_w2 = nn.Parameter(torch.ones(2))
        self.p4_w2 = nn.Parameter(torch.ones(3))
        self.relu = nn.ReLU(inplace=True)
        self.swish = nn.SiLU()

    def _fuse(self, w, feats):
        weight = self.relu(w)  # bug: GG301
        weight = weight / (torch.sum(weight, dim=0) + self.epsilon)
        return sum(weight[i] * f for i, f in enumerate(feats))

    def forward(self, inputs):
        p3_in, p4_in, p5_in = inputs
        p5_up = F.interpolate(p5_in, scale_factor=2, mode="nearest")
        p4_up = self.conv_p4_up(self.swish(self._fuse(self.p4_w1, [p4_in, p5_up])))
        p4_to_p3 = F.interpolate(p4_up, scale_factor=2, mode="nearest")
        p3_out = self.conv_p3_out(self.swish(self._fuse(self.p3_w2, [p3_in, p4_to_p3])))
        p3_down = F.max_pool2d(p3_out, 2)
        p4_out = self.conv_p4_out(self.swish(self._fuse(self.p4_w2, [p4_in, p4_up, p3_down])))
        return p3_out, p4_out, p5_in


class TinyDet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem3 = nn.Conv2d(3, NUM_CHANNELS, 3, stride=2, padding=1)
        self.stem4 = nn.Conv2d(NUM_CHANNELS, NUM_CHANNELS, 3, stride=2, padding=1)
        self.stem5 = nn.Conv2d(NUM_CHANNELS, NUM_CHANNELS, 3, stride=2, padding=1)
        self.bifpn = nn.Sequential(BiFPNLayer(NUM_CHANNELS), BiFPNLayer(NUM_CHANNELS))
        self.cls_head = nn.Conv2d(NUM_CHANNELS, NUM_CLASSES, 1)

    def forward(self, img):
        p3 = self.stem3(img)
        p4 = self.stem4(p3)
        p5 = self.stem5(p4)
        feats = self.bifpn((p3, p4, p5))
        return [self.cls_head(f).flatten(2) for f in feats]


def focal_loss(logits, targets, gamma=2.0):
    p = torch.sigmoid(logits)
    ce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    return (ce * (1 - p_t) ** gamma).mean()


def train(model, steps=3):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(steps):
        imgs = torch.randn(2, 3, 32, 32)
        outputs = model(imgs)
        loss = sum(focal_loss(o, (torch.rand_like(o) > 0.9).float()) for o in outputs)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    try:
        train(TinyDet())
    except RuntimeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        sys.exit(0)
    raise SystemExit("NO BUG")
