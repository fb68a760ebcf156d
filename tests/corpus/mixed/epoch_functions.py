"""The train/validate/predict functions of a typical classification script, each receiving
the model (and optimizer) from `main()`, with the four mistakes most often reported for them.

Shapes from the PyTorch tutorials' train_loop/test_loop split and from forum threads about
growing memory (`total += loss`, a validation loop without `torch.no_grad()` collecting
losses), "Can't call numpy() on Tensor that requires grad" on softmax outputs, and a
`zero_grad()` moved between `backward()` and `step()`. The fixed functions are beside them;
`argmax(...)` outputs never require grad, so their `.numpy()` is fine.
"""

import torch
from torch import nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 16)
        self.fc2 = nn.Linear(16, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def train_epoch(model, loader, optimizer):
    model.train()
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss  # expect: GG203
    return total / len(loader)


def train_epoch_fixed(model, loader, optimizer):
    model.train()
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


def validate(model, loader):
    model.eval()
    losses = []
    for x, y in loader:  # expect: GG204
        losses.append(F.cross_entropy(model(x), y))
    return torch.stack(losses).mean()


def validate_fixed(model, loader):
    model.eval()
    losses = []
    with torch.no_grad():
        for x, y in loader:
            losses.append(F.cross_entropy(model(x), y))
    return torch.stack(losses).mean()


def zero_between(model, loader, optimizer):
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.zero_grad()  # expect: GG605
        optimizer.step()


def predictions(model, loader):
    labels, scores = [], []
    for x, _ in loader:
        labels.append(model(x).argmax(1).numpy())
        scores.append(torch.softmax(model(x), 1).numpy())  # expect: GG502
    return labels, scores


def predictions_fixed(model, loader):
    scores = []
    for x, _ in loader:
        scores.append(torch.softmax(model(x), 1).detach().numpy())
    return scores


def main():
    model = Net()
    optimizer = torch.optim.Adam(model.parameters())
    loader = [(torch.randn(4, 10), torch.randint(0, 2, (4,)))]
    for epoch in range(3):
        train_epoch(model, loader, optimizer)
        train_epoch_fixed(model, loader, optimizer)
        validate(model, loader)
        validate_fixed(model, loader)
        zero_between(model, loader, optimizer)
        predictions(model, loader)
        predictions_fixed(model, loader)


if __name__ == "__main__":
    main()
