"""GG203: epoch loss meters accumulate the loss tensors themselves (graphs kept alive).

A two-head segmentation trainer records its per-iteration losses in a dict of running sums
with `+=` on the loss tensors. Each sum becomes a new node whose history reaches back
through every iteration's forward graph, so all activations of the epoch stay referenced
(memory grows until the epoch ends, or OOM on a GPU).
Silent: no error; the epoch total still has a grad_fn / requires_grad after training.

Modelled on: https://github.com/JIA-Lab-research/DecoupleNet/issues/3
"""
import argparse
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def parse_args():
    p = argparse.ArgumentParser(description="phase-1 training")
    p.add_argument("--num_classes", type=int, default=4)
    p.add_argument("--batch_size", type=int, default=4)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--aux_weight", type=float, default=0.4)
    p.add_argument("--print_freq", type=int, default=100)
    return p.parse_args([])


class SegNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                                      nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.head = nn.Conv2d(32, num_classes, 1)
        self.aux_head = nn.Conv2d(32, num_classes, 1)

    def forward(self, x):
        feat = self.backbone(x)
        return self.head(feat), self.aux_head(feat)


class AverageMeter(object):
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def train_one_epoch(args, model, loader, optimizer, epoch):
    model.train()
    loss_meter = AverageMeter()
    epoch_losses = defaultdict(float)
    for i, (images, labels) in enumerate(loader):
        pred, pred_aux = model(images)
        loss_seg = F.cross_entropy(pred, labels)
        loss_aux = F.cross_entropy(pred_aux, labels)
        loss = loss_seg + args.aux_weight * loss_aux

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        epoch_losses["seg"] += loss_seg  # bug: GG203
        epoch_losses["aux"] += loss_aux
        loss_meter.update(loss.item(), images.size(0))
        if (i + 1) % args.print_freq == 0:
            print(f"epoch {epoch} iter {i + 1}: loss {loss_meter.avg:.4f}")
    n = len(loader)
    return {k: v / n for k, v in epoch_losses.items()}, loss_meter.avg


def main():
    torch.manual_seed(0)
    args = parse_args()
    images = torch.randn(16, 3, 12, 12)
    labels = torch.randint(0, args.num_classes, (16, 12, 12))
    loader = DataLoader(TensorDataset(images, labels), batch_size=args.batch_size, shuffle=True)
    model = SegNet(args.num_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    stats, avg = train_one_epoch(args, model, loader, optimizer, epoch=0)
    print(f"epoch 0 done: avg loss {avg:.4f}")
    return stats


if __name__ == "__main__":
    stats = main()
    seg_total = stats["seg"]
    if torch.is_tensor(seg_total) and seg_total.grad_fn is not None:
        print(f"BUGGY: epoch loss sum still carries graph history (grad_fn={type(seg_total.grad_fn).__name__})")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
