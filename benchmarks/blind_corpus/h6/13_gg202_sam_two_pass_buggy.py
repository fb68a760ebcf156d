"""GG202 (buggy): SAM's second step backpropagates through the first step's graph.

Mistake: Sharpness-Aware Minimisation needs two forward/backward passes per batch: one
at w, one at the perturbed weights w + e(w). The training loop reuses `output` from
the first forward for the second loss, so the second backward() has to traverse the
graph that the first backward() already released (and would use stale activations
even if it were kept).
Error raised by torch: RuntimeError: Trying to backward through the graph a second time
(or directly access saved tensors after they have already been freed) ...
Modelled on: https://github.com/davda54/sam/issues/45
"""
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        defaults = dict(rho=rho, **kwargs)
        super().__init__(params, defaults)
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        grad_norm = torch.norm(torch.stack([p.grad.norm(2) for g in self.param_groups
                                            for p in g["params"] if p.grad is not None]), 2)
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                e_w = p.grad * scale
                p.add_(e_w)
                self.state[p]["e_w"] = e_w
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if "e_w" in self.state[p]:
                    p.sub_(self.state[p]["e_w"])
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def accuracy(output, target):
    return (output.argmax(1) == target).float().mean() * 100


def train(train_loader, model, criterion, optimizer, epoch):
    losses, top1 = AverageMeter(), AverageMeter()
    model.train()
    for i, (images, target) in enumerate(train_loader):
        output = model(images)
        # first forward-backward pass
        loss = criterion(output, target)
        loss.backward()
        optimizer.first_step(zero_grad=True)
        # second forward-backward pass
        criterion(output, target).backward()  # bug: GG202
        optimizer.second_step(zero_grad=True)

        losses.update(loss.item(), images.size(0))
        top1.update(accuracy(output.detach(), target).item(), images.size(0))
    print(f"Epoch {epoch}: loss {losses.avg:.4f} acc@1 {top1.avg:.1f}")


def main():
    torch.manual_seed(0)
    images = torch.randn(64, 1, 8, 8)
    labels = torch.randint(0, 10, (64,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=16, shuffle=True)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(32, 10))
    criterion = nn.CrossEntropyLoss()
    optimizer = SAM(model.parameters(), torch.optim.SGD, rho=0.05, lr=0.1, momentum=0.9)
    for epoch in range(2):
        train(loader, model, criterion, optimizer, epoch)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
