"""Image-classifier training script with zero_grad() in the wrong place.

Modelled on: https://learn.biosrag.com/ai/experiences/zero-grad.html

The article compares where optimizer.zero_grad() can go in a training
loop and states the one hard constraint: gradients must be cleared before
backward(), never between backward() and step(). Here the per-batch
helper clears them right after backward(), so step() sees all-zero
gradients and plain SGD never moves the weights.

Fixed version: zero_grad() runs before the forward/backward pass.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvClassifier(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 6, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 12, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(12, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def compute_loss(model, batch, criterion):
    images, labels = batch
    return criterion(model(images), labels)


def train_one_batch(model, batch, criterion, optimizer):
    optimizer.zero_grad()
    loss = compute_loss(model, batch, criterion)
    loss.backward()
    optimizer.step()
    return loss.item()


def train(model, loader, epochs, lr):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    history = []
    for _ in range(epochs):
        model.train()
        for batch in loader:
            history.append(train_one_batch(model, batch, criterion, optimizer))
    return history


def synthetic_loader(n_batches=4, bs=8):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(bs, 1, 12, 12, generator=g), torch.randint(0, 4, (bs,), generator=g)) for _ in range(n_batches)]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = ConvClassifier()
    before = [p.detach().clone() for p in model.parameters()]
    train(model, synthetic_loader(), args.epochs, args.lr)
    unchanged = all(torch.equal(a, b) for a, b in zip(before, model.parameters()))
    if unchanged:
        print("BUGGY: zero_grad() between backward() and step(); weights never changed")
    else:
        print("FIXED: ok")
