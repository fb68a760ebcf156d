"""GG401 look-alike - requires_grad set on an updated adversarial input, after detach().

PGD adversarial training: inside the attack loop `x_adv` is recomputed from
the previous iterate and its gradient, then `x_adv.requires_grad = True` is
set -- the shape of "requires_grad set on a computed tensor".  Each iterate is
first taken out of the graph with `.detach()`, so the flag is set on a fresh
leaf and is legal.

Modelled on: https://github.com/facebookresearch/fairscale/issues/1126 (correct counterpart)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ATTACK = {"eps": 8 / 255, "alpha": 2 / 255, "steps": 3}
TRAIN = {"epochs": 1, "batch": 8, "lr": 0.01}


class SmallCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


def pgd_attack(model, images, labels, eps, alpha, steps):
    was_training = model.training
    model.eval()
    x_adv = images.clone() + torch.empty_like(images).uniform_(-eps, eps)
    x_adv = torch.clamp(x_adv, 0, 1).detach()
    for _ in range(steps):
        x_adv.requires_grad = True
        loss = F.cross_entropy(model(x_adv), labels)
        grad, = torch.autograd.grad(loss, x_adv)
        x_adv = x_adv.detach() + alpha * grad.sign()
        delta = torch.clamp(x_adv - images, min=-eps, max=eps)
        x_adv = torch.clamp(images + delta, 0, 1).detach()
    model.train(was_training)
    return x_adv


def adversarial_train(model, loader, optimizer):
    model.train()
    for i, (images, labels) in enumerate(loader):
        adv = pgd_attack(model, images, labels, **ATTACK)
        loss = F.cross_entropy(model(adv), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"batch {i}: adv loss {loss.item():.4f}, max |delta| {(adv - images).abs().max().item():.4f}")


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.rand(16, 3, 8, 8), torch.randint(0, 10, (16,)))
    loader = DataLoader(data, batch_size=TRAIN["batch"], shuffle=True)
    model = SmallCNN()
    optimizer = torch.optim.SGD(model.parameters(), lr=TRAIN["lr"], momentum=0.9)
    for _ in range(TRAIN["epochs"]):
        adversarial_train(model, loader, optimizer)


if __name__ == "__main__":
    main()
    print("OK")
