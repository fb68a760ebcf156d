"""Invertible-ResNet style classifier: train + test utilities (utils_cifar.py).

Modelled on: https://github.com/jhjacobsen/invertible-resnet/issues/15

Fixed version (the fix suggested in the issue): the test loop runs under
``with torch.no_grad():`` after ``model.eval()``, so the stored logits carry
no graph.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class InvertibleBlock(nn.Module):
    def __init__(self, dim, coeff=0.9):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(dim, dim), nn.ELU(), nn.Linear(dim, dim))
        self.coeff = coeff

    def forward(self, x):
        return x + self.coeff * self.f(x)


class IResNetClassifier(nn.Module):
    def __init__(self, in_dim, n_blocks, n_classes):
        super().__init__()
        self.blocks = nn.Sequential(*[InvertibleBlock(in_dim) for _ in range(n_blocks)])
        self.bn = nn.BatchNorm1d(in_dim)
        self.logits = nn.Linear(in_dim, n_classes)

    def forward(self, x):
        z = self.blocks(x)
        return self.logits(F.relu(self.bn(z))), z


def train(model, optimizer, trainloader):
    model.train()
    for inputs, targets in trainloader:
        optimizer.zero_grad()
        out, _ = model(inputs)
        loss = F.cross_entropy(out, targets)
        loss.backward()
        optimizer.step()


def expected_calibration_error(logits, targets, n_bins=5):
    probs = torch.softmax(logits, 1)
    conf, pred = probs.max(1)
    ece = torch.zeros(())
    for lo in torch.linspace(0, 1, n_bins + 1)[:-1]:
        m = (conf > lo) & (conf <= lo + 1.0 / n_bins)
        if m.any():
            ece += m.float().mean() * (conf[m].mean() - (pred[m] == targets[m]).float().mean()).abs()
    return ece


def test(model, testloader, criterion, epoch):
    model.eval()
    test_loss, correct, total = 0.0, 0, 0
    all_logits, all_targets = [], []
    with torch.no_grad():
        for inputs, targets in testloader:
            out, _ = model(inputs)
            loss = criterion(out, targets)
            test_loss += loss.item()
            _, predicted = torch.max(out, 1)
            total += targets.size(0)
            correct += predicted.eq(targets).sum().item()
            all_logits.append(out)
            all_targets.append(targets)
    logits = torch.cat(all_logits)
    ece = expected_calibration_error(logits, torch.cat(all_targets))
    print(f"| Test epoch {epoch} loss {test_loss / len(testloader):.3f} acc {100.0 * correct / total:.1f}")
    return logits, ece


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--nBlocks", type=int, default=3)
    p.add_argument("--epochs", type=int, default=1)
    args = p.parse_args([])
    torch.manual_seed(0)
    x = torch.randn(256, 12)
    y = (x[:, :3].sum(1) > 0).long()
    trainloader = [(x[i:i + 32], y[i:i + 32]) for i in range(0, 192, 32)]
    testloader = [(x[i:i + 32], y[i:i + 32]) for i in range(192, 256, 32)]
    model = IResNetClassifier(12, args.nBlocks, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(args.epochs):
        train(model, optimizer, trainloader)
        logits, ece = test(model, testloader, nn.CrossEntropyLoss(), epoch)
    if logits.requires_grad and logits.grad_fn is not None:
        print("FIXED broke: graph kept")
    else:
        print("FIXED: ok")


if __name__ == "__main__":
    main()
