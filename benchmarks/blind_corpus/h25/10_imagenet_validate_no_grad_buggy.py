"""GG204 - validation loop runs with autograd on and keeps every output's graph.

An ImageNet-example style script: train() and validate() with AverageMeter and
top-k accuracy.  validate() calls model.eval() but never disables autograd, and
it also stores the logits of every batch to build a confusion matrix at the
end.  Every stored output therefore carries its whole forward graph (all
activations of the batch) until validation finishes -- validation memory grows
with the size of the validation set.  Silent: no error; the collected logits
still require grad and have a grad_fn.

Modelled on: https://github.com/pytorch/pytorch/issues/4932
"""
import argparse
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    parser = argparse.ArgumentParser(description="tiny imagenet-style trainer")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--num-classes", type=int, default=4)
    parser.add_argument("--print-freq", type=int, default=2)
    return parser.parse_args([])


class AverageMeter:
    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.val = self.avg = self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    _, pred = output.topk(maxk, 1, True, True)
    correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))
    return [correct[:k].reshape(-1).float().sum(0) * 100.0 / target.size(0) for k in topk]


def build_model(num_classes):
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, num_classes))


def train(train_loader, model, criterion, optimizer, epoch, args):
    losses, top1 = AverageMeter("Loss"), AverageMeter("Acc@1")
    model.train()
    for i, (images, target) in enumerate(train_loader):
        output = model(images)
        loss = criterion(output, target)
        acc1, = accuracy(output, target)
        losses.update(loss.item(), images.size(0))
        top1.update(acc1.item(), images.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % args.print_freq == 0:
            print(f"Epoch [{epoch}][{i}/{len(train_loader)}] loss {losses.avg:.3f} acc {top1.avg:.1f}")


def validate(val_loader, model, criterion, args):
    losses, top1 = AverageMeter("Loss"), AverageMeter("Acc@1")
    all_logits, all_targets = [], []
    model.eval()
    end = time.time()
    for i, (images, target) in enumerate(val_loader):  # bug: GG204
        output = model(images)
        loss = criterion(output, target)
        acc1, = accuracy(output, target)
        losses.update(loss.item(), images.size(0))
        top1.update(acc1.item(), images.size(0))
        all_logits.append(output)
        all_targets.append(target)
    logits = torch.cat(all_logits)
    preds = logits.argmax(1)
    targets = torch.cat(all_targets)
    confusion = torch.zeros(args.num_classes, args.num_classes, dtype=torch.long)
    for t, p in zip(targets, preds):
        confusion[t, p] += 1
    print(f" * Acc@1 {top1.avg:.2f} loss {losses.avg:.3f} ({time.time() - end:.2f}s)")
    return top1.avg, logits, confusion


def main():
    args = get_args()
    torch.manual_seed(0)
    x, y = torch.randn(48, 3, 16, 16), torch.randint(0, args.num_classes, (48,))
    train_loader = DataLoader(TensorDataset(x[:32], y[:32]), batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[32:], y[32:]), batch_size=args.batch_size)
    model = build_model(args.num_classes)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)
    for epoch in range(args.epochs):
        train(train_loader, model, criterion, optimizer, epoch, args)
        acc1, logits, confusion = validate(val_loader, model, criterion, args)
        scheduler.step()
    print("confusion matrix:\n", confusion)
    return logits


if __name__ == "__main__":
    logits = main()
    if logits.requires_grad and logits.grad_fn is not None:
        print("BUGGY: validation logits keep their autograd graph "
              f"(requires_grad={logits.requires_grad}, grad_fn={type(logits.grad_fn).__name__})")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
