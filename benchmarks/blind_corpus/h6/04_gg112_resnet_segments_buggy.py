"""GG112 (buggy): reentrant checkpoint fed an input that does not require grad.

Mistake: to save memory the ResNet trunk is run segment by segment through
torch.utils.checkpoint.checkpoint(..., use_reentrant=True). The first segment gets
the raw image batch, which has requires_grad=False. The reentrant implementation then
returns an output with no grad_fn, so every later segment also sees a no-grad input
and the whole trunk drops out of the graph.
Silent effect: torch only warns "None of the inputs have requires_grad=True.
Gradients will be None"; backward() still runs through the classifier head, but every
convolution in the trunk gets .grad None and never changes.
Modelled on: https://github.com/Lyken17/pytorch-memonger/issues/4
"""
import argparse
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--width", type=int, default=8)
    p.add_argument("--classes", type=int, default=4)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--checkpoint", action="store_true", default=True)
    return p.parse_args(argv)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.short = nn.Identity() if stride == 1 and cin == cout else nn.Conv2d(cin, cout, 1, stride)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.short(x))


class SmallResNet(nn.Module):
    def __init__(self, width, classes, use_checkpoint):
        super().__init__()
        self.use_checkpoint = use_checkpoint
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1), nn.BatchNorm2d(width), nn.ReLU())
        self.layer1 = BasicBlock(width, width)
        self.layer2 = BasicBlock(width, 2 * width, stride=2)
        self.layer3 = BasicBlock(2 * width, 2 * width)
        self.fc = nn.Linear(2 * width, classes)

    def segments(self):
        return [self.stem, self.layer1, self.layer2, self.layer3]

    def forward(self, x):
        out = x
        for seg in self.segments():
            if self.use_checkpoint and self.training:
                out = checkpoint(seg, out, use_reentrant=True)  # bug: GG112
            else:
                out = seg(out)
        out = F.adaptive_avg_pool2d(out, 1).flatten(1)
        return self.fc(out)


def train(model, optimizer, steps, classes):
    model.train()
    for step in range(steps):
        images = torch.randn(4, 3, 16, 16)
        labels = torch.randint(0, classes, (4,))
        optimizer.zero_grad()
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f}")


def main(argv=None):
    args = get_args(argv)
    torch.manual_seed(0)
    model = SmallResNet(args.width, args.classes, args.checkpoint)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    before = model.layer1.conv1.weight.detach().clone()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        train(model, optimizer, args.steps, args.classes)
    trunk_changed = not torch.equal(before, model.layer1.conv1.weight.detach())
    return model, trunk_changed


if __name__ == "__main__":
    model, trunk_changed = main([])
    if model.stem[0].weight.grad is None and not trunk_changed:
        print("BUGGY: trunk convolutions got no gradient (grad is None) and did not change; only fc trained")
    else:
        raise SystemExit("NO BUG")
