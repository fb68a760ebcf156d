"""GG407 (fixed version): .grad used before any backward() filled it.

Mistake: softmax + center-loss training.  The centers have their own optimizer
and their gradient must be rescaled by ``1 / weight_cent`` so the loss weight
does not change the center learning rate.  The rescaling loop was placed right
after the ``zero_grad()`` calls, before ``loss.backward()``; ``zero_grad()``
leaves ``.grad`` as None, so there is nothing to rescale yet.
torch raises (in user code): AttributeError: 'NoneType' object has no attribute
'data'
Fix: rescale the center gradients after ``loss.backward()``.
Modelled on: https://github.com/KaiyangZhou/pytorch-center-loss/issues/4
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser("softmax + center loss")
parser.add_argument("--lr-model", type=float, default=0.001)
parser.add_argument("--lr-cent", type=float, default=0.5)
parser.add_argument("--weight-cent", type=float, default=1.0)
parser.add_argument("--max-epoch", type=int, default=2)
parser.add_argument("--batch-size", type=int, default=16)
parser.add_argument("--print-freq", type=int, default=2)


class CenterLoss(nn.Module):
    def __init__(self, num_classes, feat_dim):
        super().__init__()
        self.num_classes = num_classes
        self.centers = nn.Parameter(torch.randn(num_classes, feat_dim))

    def forward(self, x, labels):
        batch_size = x.size(0)
        distmat = x.pow(2).sum(1, keepdim=True) + self.centers.pow(2).sum(1).unsqueeze(0) - 2 * x @ self.centers.t()
        classes = torch.arange(self.num_classes, device=x.device)
        mask = labels.unsqueeze(1).eq(classes.unsqueeze(0)).float()
        return (distmat * mask).clamp(min=1e-12, max=1e12).sum() / batch_size


class ConvNetFeat(nn.Module):
    def __init__(self, num_classes, feat_dim=2):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.PReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(8, 16, 3, padding=1), nn.PReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc_feat = nn.Linear(16, feat_dim)
        self.fc_cls = nn.Linear(feat_dim, num_classes)

    def forward(self, x):
        feat = self.fc_feat(self.conv(x).flatten(1))
        return feat, self.fc_cls(feat)


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def train(model, criterion_xent, criterion_cent, optimizer_model, optimizer_centloss, trainloader, args, epoch):
    model.train()
    xent_losses, cent_losses = AverageMeter(), AverageMeter()
    for batch_idx, (data, labels) in enumerate(trainloader):
        features, outputs = model(data)
        loss_xent = criterion_xent(outputs, labels)
        loss_cent = criterion_cent(features, labels) * args.weight_cent
        loss = loss_xent + loss_cent
        optimizer_model.zero_grad()
        optimizer_centloss.zero_grad()
        loss.backward()
        # remove the effect of weight_cent on the center update
        for param in criterion_cent.parameters():
            param.grad.data *= (1. / args.weight_cent)  # fixed: GG407
        optimizer_model.step()
        optimizer_centloss.step()
        xent_losses.update(loss_xent.item(), labels.size(0))
        cent_losses.update(loss_cent.item(), labels.size(0))
        if (batch_idx + 1) % args.print_freq == 0:
            print(f"epoch {epoch} batch {batch_idx + 1}: xent {xent_losses.avg:.3f} cent {cent_losses.avg:.3f}")


def main():
    args = parser.parse_args([])
    torch.manual_seed(1)
    num_classes = 4
    data = TensorDataset(torch.randn(64, 1, 12, 12), torch.randint(0, num_classes, (64,)))
    trainloader = DataLoader(data, batch_size=args.batch_size, shuffle=True)
    model = ConvNetFeat(num_classes)
    criterion_xent = nn.CrossEntropyLoss()
    criterion_cent = CenterLoss(num_classes=num_classes, feat_dim=2)
    optimizer_model = torch.optim.SGD(model.parameters(), lr=args.lr_model, weight_decay=5e-04, momentum=0.9)
    optimizer_centloss = torch.optim.SGD(criterion_cent.parameters(), lr=args.lr_cent)
    for epoch in range(args.max_epoch):
        train(model, criterion_xent, criterion_cent, optimizer_model, optimizer_centloss, trainloader, args, epoch)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
