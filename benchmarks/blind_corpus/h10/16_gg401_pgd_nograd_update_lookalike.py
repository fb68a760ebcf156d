"""GG401 look-alike: ``adv.requires_grad = True`` on a computed tensor.

A PGD adversarial-training loop.  The starting point ``images + noise`` and the
per-iteration update ``adv = adv + alpha * grad.sign()`` are computed tensors,
and the next iteration sets ``adv.requires_grad = True`` on them, just like the
DeepFool bug.  Here it is legal: the clean images and the noise do not require
grad, and the update runs inside ``torch.no_grad()``, so ``adv`` is always a
leaf without history when its flag is set.
Modelled on: none (counter-example to https://github.com/Harry24k/adversarial-attacks-pytorch/issues/2)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

PGD = {"eps": 8 / 255, "alpha": 2 / 255, "steps": 3}


class SmallConvNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        return self.fc(self.conv(x).flatten(1))


def pgd_attack(model, images, labels, eps, alpha, steps):
    adv = images + torch.empty_like(images).uniform_(-eps, eps)
    adv = adv.clamp(0, 1)
    for _ in range(steps):
        adv.requires_grad = True
        loss = F.cross_entropy(model(adv), labels)
        grad, = torch.autograd.grad(loss, adv)
        with torch.no_grad():
            adv = adv + alpha * grad.sign()
            adv = torch.min(torch.max(adv, images - eps), images + eps).clamp(0, 1)
    return adv


def adversarial_train(model, loader, optimizer, cfg, epochs=1):
    for epoch in range(epochs):
        for step, (x, y) in enumerate(loader):
            model.eval()
            x_adv = pgd_attack(model, x, y, cfg["eps"], cfg["alpha"], cfg["steps"])
            model.train()
            loss = F.cross_entropy(model(x_adv), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print(f"epoch {epoch} step {step}: adv loss {loss.item():.3f}")


def main():
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(torch.rand(24, 3, 12, 12), torch.randint(0, 10, (24,))), batch_size=8)
    model = SmallConvNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    adversarial_train(model, loader, optimizer, PGD)


if __name__ == "__main__":
    main()
    print("OK")
