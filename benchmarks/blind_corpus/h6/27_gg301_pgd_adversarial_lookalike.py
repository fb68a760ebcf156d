"""GG301 look-alike (correct code): in-place updates of grad-requiring leaves, done safely.

PGD adversarial training of a small CNN. The perturbation `delta` is a leaf with
requires_grad=True that is updated in place every attack step, but always through
.data (delta.data.add_ / clamp_), which autograd does not track. The model's custom
weight initialisation fills parameters in place inside torch.no_grad(). A
normalisation step modifies a *clone* of the input in place, which is not a leaf.
Modelled on: none found (correct counterpart of the reports behind 25/26)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ATTACK = {"epsilon": 8 / 255, "alpha": 2 / 255, "steps": 3}
MEAN, STD = 0.5, 0.25


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16, 10)
        self.reset_parameters()

    @torch.no_grad()
    def reset_parameters(self):
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                m.weight.normal_(0, 0.1)
                m.bias.zero_()

    def forward(self, x):
        x = x.clone()
        x.sub_(MEAN).div_(STD)
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x)).mean((2, 3))
        return self.fc(x)


def pgd_attack(model, X, y, epsilon, alpha, steps):
    delta = torch.zeros_like(X, requires_grad=True)
    delta.data.uniform_(-epsilon, epsilon)
    for _ in range(steps):
        loss = F.cross_entropy(model(X + delta), y)
        loss.backward()
        delta.data.add_(alpha * delta.grad.detach().sign())
        delta.data.clamp_(-epsilon, epsilon)
        delta.data = (X + delta.data).clamp(0, 1) - X
        delta.grad.zero_()
    return delta.detach()


def train_epoch(model, loader, optimizer):
    model.train()
    total, correct = 0, 0
    for X, y in loader:
        delta = pgd_attack(model, X, y, **ATTACK)
        optimizer.zero_grad()
        out = model(X + delta)
        loss = F.cross_entropy(out, y)
        loss.backward()
        optimizer.step()
        correct += (out.argmax(1) == y).sum().item()
        total += y.numel()
    return correct / total


def main():
    torch.manual_seed(0)
    X = torch.rand(32, 1, 12, 12)
    y = torch.randint(0, 10, (32,))
    loader = DataLoader(TensorDataset(X, y), batch_size=8, shuffle=True)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(2):
        print(f"epoch {epoch}: robust train acc {train_epoch(model, loader, optimizer):.3f}")


if __name__ == "__main__":
    main()
    print("OK")
