"""GG301 - in-place write into a new conv's weight, a leaf that requires grad.

Deploy script for a small HarDNet-style segmentation net: after training, every
Conv+BN pair is folded into a single conv with bias. ``fuse_conv_bn`` creates a
fresh ``nn.Conv2d`` and copies the folded kernel in with slice assignment
``cconv.weight[:, :, :, :] = W``. The new conv's weight is a Parameter (a leaf that
requires grad) and autograd is on, so torch raises
  RuntimeError: a leaf Variable that requires grad is being used in an in-place
  operation.
(older releases word it "a view of a leaf Variable ...").

Modelled on: https://github.com/PingoLH/FCHarDNet/issues/61
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def parse_args():
    parser = argparse.ArgumentParser(description="fold BN and test")
    parser.add_argument("--n_classes", type=int, default=4)
    parser.add_argument("--img_size", type=int, default=32)
    parser.add_argument("--train_iters", type=int, default=3)
    parser.add_argument("--bn_fusion", action="store_true", default=True)
    return parser.parse_args([])


class ConvLayer(nn.Sequential):
    def __init__(self, in_ch, out_ch, kernel=3, stride=1):
        super().__init__()
        self.add_module("conv", nn.Conv2d(in_ch, out_ch, kernel, stride, kernel // 2, bias=False))
        self.add_module("norm", nn.BatchNorm2d(out_ch))
        self.add_module("relu", nn.ReLU(inplace=True))


class HarDBlock(nn.Module):
    def __init__(self, in_ch, growth, n_layers):
        super().__init__()
        self.layers = nn.ModuleList()
        ch = in_ch
        for _ in range(n_layers):
            self.layers.append(ConvLayer(ch, growth))
            ch += growth
        self.out_channels = ch

    def forward(self, x):
        feats = [x]
        for layer in self.layers:
            feats.append(layer(torch.cat(feats, dim=1)))
        return torch.cat(feats, dim=1)


class TinyHarDNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.stem = nn.Sequential(ConvLayer(3, 8, stride=2), ConvLayer(8, 12))
        self.block = HarDBlock(12, 6, 3)
        self.head = nn.Conv2d(self.block.out_channels, n_classes, 1)

    def forward(self, x):
        size = x.shape[-2:]
        out = self.head(self.block(self.stem(x)))
        return F.interpolate(out, size=size, mode="bilinear", align_corners=False)


def fuse_conv_bn(conv, bn):
    cconv = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size,
                      conv.stride, conv.padding, bias=True)
    std = (bn.running_var + bn.eps).sqrt()
    scale = bn.weight / std
    W = conv.weight * scale.view(-1, 1, 1, 1)
    b = bn.bias - bn.running_mean * scale
    cconv.weight[:, :, :, :] = W[:, :, :, :]  # bug: GG301
    cconv.bias[:] = b[:]
    return cconv


def fuse_bn_recursively(module):
    for name, child in module.named_children():
        if isinstance(child, ConvLayer):
            fused = fuse_conv_bn(child.conv, child.norm)
            setattr(module, name, nn.Sequential(fused, nn.ReLU(inplace=True)))
        else:
            fuse_bn_recursively(child)
    return module


def train_a_little(model, args):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    model.train()
    for it in range(args.train_iters):
        images = torch.randn(2, 3, args.img_size, args.img_size)
        labels = torch.randint(0, args.n_classes, (2, args.img_size, args.img_size))
        loss = criterion(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"iter {it}: loss {loss.item():.4f}")


def test(args):
    torch.manual_seed(0)
    model = TinyHarDNet(args.n_classes)
    train_a_little(model, args)
    model.eval()
    images = torch.randn(1, 3, args.img_size, args.img_size)
    with torch.no_grad():
        ref = model(images)
    if args.bn_fusion:
        model = fuse_bn_recursively(model)
    with torch.no_grad():
        out = model(images)
    diff = (out - ref).abs().max().item()
    print(f"max |fused - original| = {diff:.2e}")
    assert diff < 1e-4
    return diff


if __name__ == "__main__":
    try:
        test(parse_args())
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
