"""Segmentation train/eval helpers that clear gradients between backward() and step().

Modelled on: https://github.com/sacmehta/EdgeNets/issues/14

In EdgeNets' ``train_eval_seg.py`` the per-batch update zeroed the gradients after
``loss.backward()`` but before ``optimizer.step()``. The reporter's model did not train
until ``zero_grad()`` was moved above ``loss.backward()``. With the gradients wiped just
before the step, plain SGD performs a zero update every iteration. The check shows the
network's weights are identical before and after an epoch of training.
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


class TinySegNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.head = nn.Conv2d(8, num_classes, 1)

    def forward(self, x):
        return self.head(self.enc(x))


class SegmentationLoss(nn.Module):
    def __init__(self, ignore_idx=255):
        super().__init__()
        self.ignore_idx = ignore_idx

    def forward(self, output, target):
        return F.cross_entropy(output, target, ignore_index=self.ignore_idx)


def miou(output, target, num_classes):
    pred = output.argmax(1)
    ious = []
    for c in range(num_classes):
        inter = ((pred == c) & (target == c)).sum().item()
        union = ((pred == c) | (target == c)).sum().item()
        if union:
            ious.append(inter / union)
    return sum(ious) / max(len(ious), 1)


def train_seg(model, dataset_loader, optimizer, criterion, num_classes, epoch):
    losses, miou_meter = AverageMeter(), AverageMeter()
    model.train()
    end = time.time()
    for i, (inputs, target) in enumerate(dataset_loader):
        outputs = model(inputs)
        loss = criterion(outputs, target)
        loss.backward()
        optimizer.zero_grad()  # bug: GG605
        optimizer.step()
        losses.update(loss.item(), inputs.size(0))
        miou_meter.update(miou(outputs.detach(), target, num_classes), inputs.size(0))
    return miou_meter.avg, losses.avg, time.time() - end


@torch.no_grad()
def val_seg(model, dataset_loader, criterion, num_classes):
    model.eval()
    losses = AverageMeter()
    for inputs, target in dataset_loader:
        outputs = model(inputs)
        losses.update(criterion(outputs, target).item(), inputs.size(0))
    return losses.avg


def make_loader(num_classes, n_batches=3, bs=2, size=12):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(bs, 3, size, size, generator=g), torch.randint(0, num_classes, (bs, size, size), generator=g))
            for _ in range(n_batches)]


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--num_classes", type=int, default=4)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--epochs", type=int, default=1)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = parse_args([])
    model = TinySegNet(args.num_classes)
    criterion = SegmentationLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    loader = make_loader(args.num_classes)
    before = [p.detach().clone() for p in model.parameters()]
    for epoch in range(args.epochs):
        train_seg(model, loader, optimizer, criterion, args.num_classes, epoch)
        val_seg(model, loader, criterion, args.num_classes)
    unchanged = all(torch.equal(b, p) for b, p in zip(before, model.parameters()))
    if unchanged:
        print("BUGGY: weights did not move -- gradients are cleared right before optimizer.step()")
    else:
        print("weights updated")
