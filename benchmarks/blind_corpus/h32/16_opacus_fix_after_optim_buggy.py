"""DP-SGD setup: BatchNorm layers swapped for GroupNorm after the optimizer exists.

Modelled on: https://github.com/meta-pytorch/opacus/issues/432

Opacus cannot train BatchNorm, so users run ``ModuleValidator.fix(model)``,
which replaces every BatchNorm with a fresh GroupNorm module.  In the report
the optimizer had already been built from ``model.parameters()``, so it keeps
the old BatchNorm parameters and never sees the GroupNorm weights: they get
gradients but are never stepped.  ``fix_module`` below mimics the validator.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvNet(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, n_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(x, 2)
        x = F.relu(self.bn2(self.conv2(x)))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def _replace_bn(module, groups):
    for name, child in module.named_children():
        if isinstance(child, nn.BatchNorm2d):
            setattr(module, name, nn.GroupNorm(min(groups, child.num_features), child.num_features, affine=True))
        else:
            _replace_bn(child, groups)


def fix_module(model, groups=4):
    """Like opacus ModuleValidator.fix: swap BatchNorm for GroupNorm in place."""
    _replace_bn(model, groups)
    return model


class PrivateTrainer:
    def __init__(self, args):
        self.args = args
        self.model = ConvNet(args.n_classes)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=args.lr, momentum=0.9)
        self.model = fix_module(self.model)  # bug: GG604
        self.criterion = nn.CrossEntropyLoss()

    def clip_and_noise(self):
        # crude DP step: clip whole-model grad norm then add Gaussian noise
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
        for p in self.model.parameters():
            if p.grad is not None:
                p.grad.add_(torch.randn_like(p.grad) * self.args.noise * self.args.max_grad_norm / self.args.batch_size)

    def train_step(self, x, y):
        self.model.train()
        self.optimizer.zero_grad()
        loss = self.criterion(self.model(x), y)
        loss.backward()
        self.clip_and_noise()
        self.optimizer.step()
        return loss.item()

    def fit(self, loader):
        return [self.train_step(x, y) for x, y in loader]


def make_loader(args, n=4):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(args.batch_size, 3, 8, 8, generator=g),
             torch.randint(0, args.n_classes, (args.batch_size,), generator=g)) for _ in range(n)]


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n-classes", type=int, default=4)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--max-grad-norm", type=float, default=1.0)
    p.add_argument("--noise", type=float, default=0.5)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = get_args([])
    trainer = PrivateTrainer(args)
    gn = trainer.model.bn1
    before = gn.weight.detach().clone()
    trainer.fit(make_loader(args))
    tracked = {id(p) for group in trainer.optimizer.param_groups for p in group["params"]}
    if id(gn.weight) not in tracked and torch.equal(before, gn.weight.detach()) and gn.weight.grad is not None:
        print("BUGGY: GroupNorm weights got gradients but the optimizer never updated them")
    else:
        print("GroupNorm weights are trained")
