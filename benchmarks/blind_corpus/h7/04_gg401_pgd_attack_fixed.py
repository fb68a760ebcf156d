"""GG401 - requires_grad set on a tensor computed from tensors that require grad.

FIXED version. Original mistake: an iterative (PGD-style) adversarial attack.  At the top of every
attack step the perturbed image is flagged with ``adv.requires_grad = True``.
On the first step ``adv`` is a plain copy, but after the update
``adv = adv + alpha * grad.sign()`` it is the result of an operation on a tensor
that requires grad, i.e. a non-leaf, and its flag can no longer be changed.

torch raised (buggy version): RuntimeError: you can only change requires_grad
flags of leaf variables.
Fix: detach the perturbed image first, making it a fresh leaf each step.

Modelled on: https://github.com/Harry24k/adversarial-attacks-pytorch/issues/2
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eps", type=float, default=8 / 255)
    ap.add_argument("--alpha", type=float, default=2 / 255)
    ap.add_argument("--attack-steps", type=int, default=4)
    ap.add_argument("--train-epochs", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    return ap.parse_args([])


class ConvClassifier(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(16, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def pgd_attack(model, images, labels, eps, alpha, steps):
    model.eval()
    adv = images.clone()
    for _ in range(steps):
        adv = adv.detach().requires_grad_(True)  # fixed: GG401
        loss = F.cross_entropy(model(adv), labels)
        grad, = torch.autograd.grad(loss, adv)
        adv = adv + alpha * grad.sign()
        delta = torch.clamp(adv - images, min=-eps, max=eps)
        adv = torch.clamp(images + delta, 0.0, 1.0)
    return adv


def train(model, loader, optimizer, epochs, device):
    model.train()
    for epoch in range(epochs):
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(images), labels)
            loss.backward()
            optimizer.step()
        print(f"[train] epoch {epoch} last loss {loss.item():.3f}")


def robust_accuracy(model, loader, args, device):
    correct, seen = 0, 0
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        adv = pgd_attack(model, images, labels, args.eps, args.alpha, args.attack_steps)
        with torch.no_grad():
            correct += (model(adv).argmax(1) == labels).sum().item()
        seen += labels.numel()
    return correct / seen


def main():
    args = parse()
    torch.manual_seed(0)
    device = torch.device(args.device)
    ds = TensorDataset(torch.rand(20, 3, 16, 16), torch.randint(0, 5, (20,)))
    loader = DataLoader(ds, batch_size=10)
    model = ConvClassifier().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    train(model, loader, optimizer, args.train_epochs, device)
    acc = robust_accuracy(model, loader, args, device)
    print(f"robust accuracy under PGD-{args.attack_steps}: {acc:.2%}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
