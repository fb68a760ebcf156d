"""Multi-task chest-X-ray style classifier trained with SAM (two-step optimizer).

Modelled on: https://github.com/davda54/sam/issues/10

SAM needs two forward/backward passes per batch: the first gradient is used to
perturb the weights (``first_step``), the second, computed at the perturbed
point, is used for the real update (``second_step``). Fixed version: the
second pass starts a fresh ``loss2 = 0`` accumulator, so its backward only
traverses the second forward pass's graph.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


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


class MultiHeadNet(nn.Module):
    def __init__(self, in_dim, num_tasks):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU())
        self.heads = nn.ModuleList([nn.Linear(32, 1) for _ in range(num_tasks)])

    def forward(self, x):
        feat = self.backbone(x)
        return [h(feat) for h in self.heads], feat


def get_loss(output, target, t):
    logit = output[t].squeeze(-1)
    loss = F.binary_cross_entropy_with_logits(logit, target[:, t])
    acc = ((logit > 0).float() == target[:, t]).float().mean()
    return loss, acc


def train_epoch(model, loader, optimizer, num_tasks):
    loss_sum = torch.zeros(num_tasks)
    for image, target in loader:
        output, _ = model(image)
        loss = 0
        for t in range(num_tasks):
            loss_t, acc_t = get_loss(output, target, t)
            loss += loss_t
            loss_sum[t] += loss_t.item()
        optimizer.zero_grad()
        loss.backward()
        optimizer.first_step(zero_grad=True)

        output, _ = model(image)
        loss2 = 0
        for t in range(num_tasks):
            loss_t, acc_t = get_loss(output, target, t)
            loss2 += loss_t
        loss2.backward()
        optimizer.second_step(zero_grad=True)
    return loss_sum


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--num_tasks", type=int, default=3)
    p.add_argument("--rho", type=float, default=0.05)
    args = p.parse_args([])
    torch.manual_seed(0)
    x = torch.randn(64, 10)
    y = (torch.rand(64, args.num_tasks) > 0.5).float()
    loader = [(x[i:i + 16], y[i:i + 16]) for i in range(0, 64, 16)]
    model = MultiHeadNet(10, args.num_tasks)
    optimizer = SAM(model.parameters(), torch.optim.SGD, rho=args.rho, lr=0.1, momentum=0.9)
    try:
        train_epoch(model, loader, optimizer, args.num_tasks)
        print("FIXED: ok")
    except RuntimeError as e:
        print("FIXED broke:", e)


if __name__ == "__main__":
    main()
