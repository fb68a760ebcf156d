"""GG110 - softmax output given to cross_entropy.

The classifier ends with nn.Softmax, and its output is handed to nn.CrossEntropyLoss,
which applies log_softmax itself. The loss is therefore computed on softmax(softmax(z)):
no exception is raised, but the loss can never fall below log(1 + (C-1)/e) and the
gradients are squashed, so training stalls (silent effect).
"""
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

NUM_CLASSES = 3


def make_data(n=256, dim=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(NUM_CLASSES, dim, generator=g) * 4.0
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    x = centers[y] + 0.3 * torch.randn(n, dim, generator=g)
    return TensorDataset(x, y)


def build_model(dim=8, hidden=32):
    return nn.Sequential(
        nn.Linear(dim, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, NUM_CLASSES),
        nn.Softmax(dim=1),
    )


def train(model, loader, optimizer, criterion, epochs=30):
    history = []
    for epoch in range(epochs):
        model.train()
        running = 0.0
        for step, (inputs, targets) in enumerate(loader):
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, targets)  # bug: GG110
            loss.backward()
            optimizer.step()
            running += loss.item()
        history.append(running / len(loader))
        if epoch % 10 == 0:
            print(f"epoch {epoch:02d} loss {history[-1]:.4f}")
    return history


@torch.no_grad()
def evaluate(model, loader, criterion):
    model.eval()
    total, correct, loss_sum = 0, 0, 0.0
    for inputs, targets in loader:
        outputs = model(inputs)
        loss_sum += criterion(outputs, targets).item() * len(targets)
        correct += (outputs.argmax(dim=1) == targets).sum().item()
        total += len(targets)
    return loss_sum / total, correct / total


def main():
    torch.manual_seed(0)
    ds = make_data()
    loader = DataLoader(ds, batch_size=32, shuffle=True)
    model = build_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    criterion = nn.CrossEntropyLoss()
    train(model, loader, optimizer, criterion)
    val_loss, acc = evaluate(model, DataLoader(ds, batch_size=64), criterion)
    print(f"final loss {val_loss:.4f} acc {acc:.3f}")
    return val_loss, acc


if __name__ == "__main__":
    val_loss, acc = main()
    floor = math.log(1 + (NUM_CLASSES - 1) / math.e)
    if acc > 0.95 and val_loss > floor - 1e-4:
        print(f"BUGGY: loss stuck at {val_loss:.4f} >= floor {floor:.4f} despite {acc:.0%} accuracy")
    else:
        raise SystemExit("NO BUG")
