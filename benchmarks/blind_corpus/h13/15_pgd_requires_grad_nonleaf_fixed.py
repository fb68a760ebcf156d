"""Category GG401 - requires_grad set on a tensor computed from tensors that require grad.

The PGD helper marks the adversarial batch as requiring grad at the top of
each attack step. After the first step ``x_adv`` is recomputed as
``x_adv + alpha * grad.sign()`` from the previous ``x_adv`` (which requires
grad), so it is no longer a leaf and the flag cannot be set on it:
    RuntimeError: you can only change requires_grad flags of leaf variables. ...
Modelled on: https://github.com/BorealisAI/advertorch/issues/49
(This file: fixed version - each step starts from a detached copy of the adversarial batch.)
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def parse_args(argv=None):
    ap = argparse.ArgumentParser("adversarial training")
    ap.add_argument("--eps", type=float, default=8 / 255)
    ap.add_argument("--alpha", type=float, default=2 / 255)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--device", default="cpu")
    return ap.parse_args(argv)


class SmallCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 7 * 7, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


def pgd_attack(model, images, labels, eps, alpha, steps):
    was_training = model.training
    model.eval()
    x_adv = images.clone()
    for _ in range(steps):
        x_adv = x_adv.detach().requires_grad_(True)  # fixed: GG401
        loss = F.cross_entropy(model(x_adv), labels)
        grad, = torch.autograd.grad(loss, x_adv)
        x_adv = x_adv + alpha * grad.sign()
        x_adv = torch.min(torch.max(x_adv, images - eps), images + eps).clamp(0, 1)
    model.train(was_training)
    return x_adv.detach()


def train_adv(model, loader, optimizer, args):
    model.train()
    stats = {"clean": [], "adv": []}
    for images, labels in loader:
        images, labels = images.to(args.device), labels.to(args.device)
        adv = pgd_attack(model, images, labels, args.eps, args.alpha, args.steps)
        optimizer.zero_grad()
        loss_clean = F.cross_entropy(model(images), labels)
        loss_adv = F.cross_entropy(model(adv), labels)
        loss = 0.5 * (loss_clean + loss_adv)
        loss.backward()
        optimizer.step()
        stats["clean"].append(loss_clean.item())
        stats["adv"].append(loss_adv.item())
    return {k: sum(v) / len(v) for k, v in stats.items()}


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(0)
    ds = TensorDataset(torch.rand(12, 1, 28, 28), torch.randint(0, 10, (12,)))
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True)
    model = SmallCNN().to(args.device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    print(train_adv(model, loader, optimizer, args))


if __name__ == "__main__":
    main([])
    print("FIXED: ok")
