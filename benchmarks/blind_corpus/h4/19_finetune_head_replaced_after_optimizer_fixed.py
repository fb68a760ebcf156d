"""GG604 - optimizer built before the model's parameters were replaced (fixed).

The head is swapped first and the optimizer is created afterwards, so it holds the new
head's parameters.
"""
import copy
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Encoder(nn.Module):
    def __init__(self, in_dim=12, hidden=32, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.classifier = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x))


def pretrained_encoder(ckpt_dir):
    model = Encoder()
    path = os.path.join(ckpt_dir, "pretrained.pt")
    torch.save(model.state_dict(), path)
    model.load_state_dict(torch.load(path))
    return model


def train(model, loader, optimizer, criterion, epochs=3):
    model.train()
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} last loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        model = pretrained_encoder(tmp)
    criterion = nn.CrossEntropyLoss()

    # new downstream task with 3 classes
    model.classifier = nn.Linear(model.classifier.in_features, 3)  # fixed: GG604
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    head_before = copy.deepcopy(model.classifier.state_dict())

    x = torch.randn(96, 12)
    y = torch.randint(0, 3, (96,))
    train(model, DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True), optimizer, criterion)
    has_grad = model.classifier.weight.grad is not None
    unchanged = all(torch.equal(head_before[k], v) for k, v in model.classifier.state_dict().items())
    return has_grad, unchanged


if __name__ == "__main__":
    has_grad, unchanged = main()
    assert has_grad and not unchanged
    print("FIXED: ok")
