"""Memory-saving CNN that checkpoints every stage, including the first one, with reentrant checkpoint.

Modelled on: https://github.com/pytorch/pytorch/issues/6884

With the reentrant implementation of ``torch.utils.checkpoint`` the
checkpointed segment is an autograd Function with no learnable parameters of its
own: if none of its tensor inputs requires grad, its output does not either.
The first stage here receives the raw image batch (no grad), so its output is
cut from the graph; ``backward()`` still runs (the later stages have
parameters), but the first stage never receives a gradient.  PyTorch only emits
the warning "None of the inputs have requires_grad=True. Gradients will be None".
"""
import argparse
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


def conv_bn_relu(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU())


class CheckpointedNet(nn.Module):
    def __init__(self, widths=(3, 8, 16, 16), n_classes=5, use_checkpoint=True):
        super().__init__()
        self.stages = nn.ModuleList(conv_bn_relu(a, b) for a, b in zip(widths[:-1], widths[1:]))
        self.head = nn.Linear(widths[-1], n_classes)
        self.use_checkpoint = use_checkpoint

    def run_stage(self, stage, x):
        if self.use_checkpoint and self.training:
            return checkpoint(stage, x, use_reentrant=True)  # bug: GG112
        return stage(x)

    def forward(self, x):
        for stage in self.stages:
            x = self.run_stage(stage, x)
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


def train_step(model, optimizer, images, labels):
    model.train()
    optimizer.zero_grad()
    loss = F.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss.item()


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--no_checkpoint", action="store_true")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    model = CheckpointedNet(use_checkpoint=not args.no_checkpoint)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    images, labels = torch.randn(4, 3, 8, 8), torch.randint(0, 5, (4,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        train_step(model, optimizer, images, labels)
    return model.stages[0][0].weight.grad


if __name__ == "__main__":
    grad = main([])
    if grad is None:
        print("BUGGY: the first checkpointed stage received no gradient")
    else:
        print("first stage trained")
