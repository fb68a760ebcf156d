"""GG401 look-alike: requires_grad set on tensors built from other tensors, after detach().

A PGD adversarial-training loop computes `x_adv = x + delta` style updates and then sets
`x_adv.requires_grad = True` at every attack step, but each time on `x_adv.detach()` /
`clone().detach()`, i.e. on fresh leaves. Correct code.

Modelled on: https://github.com/shamangary/Pytorch-Stochastic-Depth-Resnet/issues/2 (same
error message family); pattern from the usual PGD attack loops
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class PGD:
    def __init__(self, model, eps=8 / 255, alpha=2 / 255, steps=3, random_start=True):
        self.model, self.eps, self.alpha = model, eps, alpha
        self.steps, self.random_start = steps, random_start

    def __call__(self, images, labels):
        images = images.clone().detach()
        adv_images = images.clone().detach()
        if self.random_start:
            adv_images = adv_images + torch.empty_like(adv_images).uniform_(-self.eps, self.eps)
            adv_images = torch.clamp(adv_images, 0, 1).detach()
        for _ in range(self.steps):
            adv_images.requires_grad = True
            cost = F.cross_entropy(self.model(adv_images), labels)
            grad = torch.autograd.grad(cost, adv_images)[0]
            adv_images = adv_images.detach() + self.alpha * grad.sign()
            delta = torch.clamp(adv_images - images, min=-self.eps, max=self.eps)
            adv_images = torch.clamp(images + delta, 0, 1).detach()
        return adv_images


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 4 * 4, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        return self.fc(x.flatten(1))


def train_adv(model, loader, optimizer, attack, epoch):
    for images, labels in loader:
        model.eval()
        adv = attack(images, labels)
        model.train()
        loss = F.cross_entropy(model(adv), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: adv loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.rand(16, 1, 8, 8), torch.randint(0, 3, (16,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    attack = PGD(model)
    for epoch in range(2):
        train_adv(model, loader, optimizer, attack, epoch)


if __name__ == "__main__":
    main()
    print("OK")
