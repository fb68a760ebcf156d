"""GG604 (fixed) - the classifier head is replaced before the optimizer is built.

Originally the SGD optimizer was created from `model.parameters()` and only then
was `model.fc` swapped for a new `nn.Linear`, so the new head was in no param
group and never moved.
Fix: replace the head first, then build the optimizer and scheduler.

Modelled on: https://github.com/pytorch/pytorch/issues/14467
"""
import argparse
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def get_parser():
    parser = argparse.ArgumentParser(description="fine-tune a small residual net")
    parser.add_argument("--num-classes", type=int, default=6)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--workdir", default=tempfile.mkdtemp(prefix="ft_"))
    return parser


class BasicBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.conv1 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(ch)
        self.conv2 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(ch)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + x)


class TinyResNet(nn.Module):
    def __init__(self, num_classes=1000, width=16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        self.layer1 = BasicBlock(width)
        self.layer2 = BasicBlock(width)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(width, num_classes)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def load_pretrained(model, workdir):
    """Pretend an ImageNet checkpoint exists: save one and load it back."""
    path = os.path.join(workdir, "tiny_resnet_imagenet.pth")
    if not os.path.exists(path):
        torch.save(TinyResNet().state_dict(), path)
    model.load_state_dict(torch.load(path))
    return model


def train_one_epoch(model, loader, criterion, optimizer, epoch):
    model.train()
    correct, seen = 0, 0
    for i, (images, target) in enumerate(loader):
        output = model(images)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        correct += (output.argmax(1) == target).sum().item()
        seen += target.numel()
    print(f"Epoch: [{epoch}] loss {loss.item():.4f} acc {100.0 * correct / seen:.1f}%")


def main(args):
    model = load_pretrained(TinyResNet(), args.workdir)
    if args.num_classes != model.fc.out_features:
        model.fc = nn.Linear(model.fc.in_features, args.num_classes)  # fixed: GG604

    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=args.momentum, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)

    images = torch.randn(64, 3, 16, 16)
    labels = torch.randint(0, args.num_classes, (64,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=args.batch_size, shuffle=True)
    head_before = model.fc.weight.detach().clone()
    for epoch in range(args.epochs):
        train_one_epoch(model, loader, criterion, optimizer, epoch)
        scheduler.step()
    return model, head_before


def check_training():
    torch.manual_seed(0)
    args = get_parser().parse_args([])
    model, head_before = main(args)
    assert model.fc.weight.grad is not None, "head got no gradient at all"
    moved = (model.fc.weight.detach() - head_before).abs().max().item()
    assert moved > 0, "new classifier head was never updated (it is not in the optimizer's param groups)"


if __name__ == "__main__":
    check_training()
    print("FIXED: ok")
