"""BN-Inception blocks whose ReLU outputs are computed and then dropped in forward().

Modelled on: https://github.com/Cadene/pretrained-models.pytorch/issues/79

In the ported BNInception network each branch runs conv -> batch-norm -> ReLU, but the
result of the ReLU call is never used: the concatenation at the end of the inception
block takes the batch-norm outputs instead. In this rewrite the ReLU calls are bare
statements whose return value is discarded. The ReLUs are therefore no-ops and the block
is (piecewise) linear; the check shows negative activations leaving the block.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvBN(nn.Module):
    def __init__(self, cin, cout, k, padding=0):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, padding=padding)
        self.bn = nn.BatchNorm2d(cout, affine=True)

    def forward(self, x):
        return self.bn(self.conv(x))


class InceptionBlock(nn.Module):
    def __init__(self, cin, c1x1, c3x3_reduce, c3x3, cpool):
        super().__init__()
        self.branch_1x1 = ConvBN(cin, c1x1, 1)
        self.relu_1x1 = nn.ReLU()
        self.branch_3x3_reduce = ConvBN(cin, c3x3_reduce, 1)
        self.relu_3x3_reduce = nn.ReLU()
        self.branch_3x3 = ConvBN(c3x3_reduce, c3x3, 3, padding=1)
        self.relu_3x3 = nn.ReLU()
        self.pool = nn.AvgPool2d(3, stride=1, padding=1)
        self.pool_proj = ConvBN(cin, cpool, 1)
        self.relu_pool_proj = nn.ReLU()

    def forward(self, x):
        out_1x1 = self.branch_1x1(x)
        self.relu_1x1(out_1x1)  # bug: GG602
        reduce_out = self.branch_3x3_reduce(x)
        reduce_out = self.relu_3x3_reduce(reduce_out)
        out_3x3 = self.branch_3x3(reduce_out)
        self.relu_3x3(out_3x3)
        pool_out = self.pool_proj(self.pool(x))
        self.relu_pool_proj(pool_out)
        return torch.cat([out_1x1, out_3x3, pool_out], 1)


class BNInception(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = ConvBN(3, 16, 3, padding=1)
        self.stem_relu = nn.ReLU()
        self.inception_3a = InceptionBlock(16, 8, 8, 12, 4)
        self.inception_3b = InceptionBlock(24, 8, 8, 12, 4)
        self.last_linear = nn.Linear(24, num_classes)

    def features(self, x):
        x = self.stem_relu(self.stem(x))
        x = self.inception_3a(x)
        return self.inception_3b(x)

    def logits(self, features):
        return self.last_linear(F.adaptive_avg_pool2d(features, 1).flatten(1))

    def forward(self, x):
        return self.logits(self.features(x))


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--image-size", type=int, default=16)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = parse_args([])
    model = BNInception().train()
    x = torch.randn(args.batch_size, 3, args.image_size, args.image_size)
    feats = model.features(x)
    loss = F.cross_entropy(model.logits(feats), torch.zeros(args.batch_size, dtype=torch.long))
    loss.backward()
    if feats.min().item() < 0:
        print(f"BUGGY: inception block emits negative activations (min {feats.min().item():.2f}); ReLU outputs were discarded")
    else:
        print("activations rectified")
