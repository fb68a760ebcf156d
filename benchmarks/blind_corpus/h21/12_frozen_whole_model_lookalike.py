"""GG104 look-alike - every model parameter frozen, but the input is optimised.

A PGD-style adversarial attack: the classifier is fully frozen with
requires_grad_(False), and the perturbation `delta` is a leaf that requires
grad. backward() flows through the frozen network into delta, which is what
the attack needs. Nothing is wrong here.

Modelled on: https://github.com/pyg-team/pytorch_geometric/pull/9996
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

EPS = 8 / 255
ALPHA = 2 / 255
STEPS = 4


class SmallCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


def pgd_attack(model, images, labels):
    delta = torch.zeros_like(images, requires_grad=True)
    for _ in range(STEPS):
        loss = F.cross_entropy(model(images + delta), labels)
        loss.backward()
        with torch.no_grad():
            delta += ALPHA * delta.grad.sign()
            delta.clamp_(-EPS, EPS)
            delta.copy_((images + delta).clamp(0, 1) - images)
        delta.grad.zero_()
    return (images + delta).detach()


def main():
    torch.manual_seed(0)
    model = SmallCNN().eval()
    model.requires_grad_(False)
    images = torch.rand(4, 3, 16, 16)
    labels = torch.randint(0, 10, (4,))
    adv = pgd_attack(model, images, labels)
    assert all(p.grad is None for p in model.parameters())
    assert (adv - images).abs().max() > 0
    print(f"max perturbation {(adv - images).abs().max():.4f}")


if __name__ == "__main__":
    main()
    print("OK")
