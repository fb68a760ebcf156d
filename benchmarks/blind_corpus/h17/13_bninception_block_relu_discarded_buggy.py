"""GG602 - ReLU module called in an Inception block's forward with its result thrown away.

In the 1x1 branch of the BN-Inception style block the ReLU module is called on
the batch-normed activations, but the return value is not assigned; the
un-activated tensor is what gets concatenated with the other branches.
No error is raised -- the block silently loses a non-linearity.
Observable: the 1x1 channels of the block output contain negative values.

Modelled on: https://github.com/Cadene/pretrained-models.pytorch/issues/90
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

NUM_CLASSES = 5
EPOCHS = 2
LR = 0.01


class InceptionBlock(nn.Module):
    def __init__(self, in_ch, c1x1, c3x3_reduce, c3x3, pool_proj):
        super().__init__()
        self.inception_1x1 = nn.Conv2d(in_ch, c1x1, kernel_size=1)
        self.inception_1x1_bn = nn.BatchNorm2d(c1x1, affine=True)
        self.inception_relu_1x1 = nn.ReLU()
        self.inception_3x3_reduce = nn.Conv2d(in_ch, c3x3_reduce, kernel_size=1)
        self.inception_3x3_reduce_bn = nn.BatchNorm2d(c3x3_reduce, affine=True)
        self.inception_relu_3x3_reduce = nn.ReLU()
        self.inception_3x3 = nn.Conv2d(c3x3_reduce, c3x3, kernel_size=3, padding=1)
        self.inception_3x3_bn = nn.BatchNorm2d(c3x3, affine=True)
        self.inception_relu_3x3 = nn.ReLU()
        self.inception_pool = nn.AvgPool2d(3, stride=1, padding=1)
        self.inception_pool_proj = nn.Conv2d(in_ch, pool_proj, kernel_size=1)
        self.inception_pool_proj_bn = nn.BatchNorm2d(pool_proj, affine=True)
        self.inception_relu_pool_proj = nn.ReLU()
        self.c1x1 = c1x1

    def forward(self, x):
        inception_1x1_out = self.inception_1x1(x)
        inception_1x1_bn_out = self.inception_1x1_bn(inception_1x1_out)
        self.inception_relu_1x1(inception_1x1_bn_out)  # bug: GG602
        inception_3x3_reduce_out = self.inception_3x3_reduce(x)
        inception_3x3_reduce_bn_out = self.inception_3x3_reduce_bn(inception_3x3_reduce_out)
        inception_3x3_reduce_bn_out = self.inception_relu_3x3_reduce(inception_3x3_reduce_bn_out)
        inception_3x3_out = self.inception_3x3(inception_3x3_reduce_bn_out)
        inception_3x3_bn_out = self.inception_3x3_bn(inception_3x3_out)
        inception_3x3_bn_out = self.inception_relu_3x3(inception_3x3_bn_out)
        inception_pool_out = self.inception_pool(x)
        inception_pool_proj_out = self.inception_pool_proj(inception_pool_out)
        inception_pool_proj_bn_out = self.inception_pool_proj_bn(inception_pool_proj_out)
        inception_pool_proj_bn_out = self.inception_relu_pool_proj(inception_pool_proj_bn_out)
        return torch.cat([inception_1x1_bn_out, inception_3x3_bn_out,
                          inception_pool_proj_bn_out], 1)


class BNInceptionLite(nn.Module):
    def __init__(self, num_classes=NUM_CLASSES):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1),
                                   nn.BatchNorm2d(16), nn.ReLU())
        self.block_3a = InceptionBlock(16, 8, 8, 12, 4)
        self.block_3b = InceptionBlock(24, 12, 8, 16, 4)
        self.global_pool = nn.AdaptiveAvgPool2d(1)
        self.last_linear = nn.Linear(32, num_classes)

    def features(self, x):
        return self.block_3b(self.block_3a(self.conv1(x)))

    def logits(self, feats):
        return self.last_linear(self.global_pool(feats).flatten(1))

    def forward(self, x):
        return self.logits(self.features(x))


def train(model, loader, optimizer, criterion):
    model.train()
    for epoch in range(EPOCHS):
        for i, (x, y) in enumerate(loader):
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    x = torch.randn(24, 3, 16, 16)
    y = torch.randint(0, NUM_CLASSES, (24,))
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)
    model = BNInceptionLite()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    train(model, loader, optimizer, nn.CrossEntropyLoss())
    model.eval()
    with torch.no_grad():
        out = model.block_3a(model.conv1(x))
    return (out[:, :model.block_3a.c1x1] < 0).any().item()


if __name__ == "__main__":
    if main():
        print("BUGGY: 1x1 branch of the inception block is never rectified")
    else:
        raise SystemExit("NO BUG")
