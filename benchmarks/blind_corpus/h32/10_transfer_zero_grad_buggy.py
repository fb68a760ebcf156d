"""Transfer-learning notebook: new classifier head trained on frozen features.

Modelled on: https://github.com/udacity/deep-learning-v2-pytorch/pull/160

The transfer-learning exercise freezes a pretrained feature extractor, swaps in
a new ``classifier`` head and trains it with Adam.  The training loop calls
``loss.backward()`` and ``optimizer.step()`` every batch but never
``optimizer.zero_grad()``, so each step uses the sum of the gradients of every
batch seen so far.  The check runs the loop with lr=0 and shows that the
classifier gradient equals the sum of the per-batch gradients.
"""
import argparse
from collections import OrderedDict

import torch
import torch.nn as nn


class FeatureExtractor(nn.Module):
    """Stand-in for densenet121.features (frozen)."""

    def __init__(self, in_ch=3, out_dim=64):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(in_ch, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4))
        self.proj = nn.Linear(8 * 16, out_dim)

    def forward(self, x):
        return self.proj(self.conv(x).flatten(1))


class TransferNet(nn.Module):
    def __init__(self, n_features=64, n_classes=2):
        super().__init__()
        self.features = FeatureExtractor(out_dim=n_features)
        self.classifier = nn.Sequential(OrderedDict([
            ("fc1", nn.Linear(n_features, 32)), ("relu", nn.ReLU()), ("drop", nn.Dropout(0.2)),
            ("fc2", nn.Linear(32, n_classes)), ("output", nn.LogSoftmax(dim=1))]))

    def forward(self, x):
        return self.classifier(self.features(x))


def build_model(args):
    model = TransferNet(n_classes=args.n_classes)
    for param in model.features.parameters():
        param.requires_grad = False
    return model


def validate(model, loader, criterion):
    model.eval()
    test_loss, accuracy = 0.0, 0.0
    with torch.no_grad():
        for inputs, labels in loader:
            logps = model(inputs)
            test_loss += criterion(logps, labels).item()
            accuracy += (logps.argmax(1) == labels).float().mean().item()
    model.train()
    return test_loss / len(loader), accuracy / len(loader)


def train(model, trainloader, testloader, args):
    criterion = nn.NLLLoss()
    optimizer = torch.optim.Adam(model.classifier.parameters(), lr=args.lr)
    steps = 0
    running_loss = 0.0
    for epoch in range(args.epochs):
        for inputs, labels in trainloader:
            steps += 1
            logps = model(inputs)
            loss = criterion(logps, labels)
            loss.backward()
            optimizer.step()  # bug: GG601
            running_loss += loss.item()
            if steps % args.print_every == 0:
                test_loss, acc = validate(model, testloader, criterion)
                running_loss = 0.0
    return criterion


def make_loader(n, args, seed):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(args.batch_size, 3, 8, 8, generator=g),
             torch.randint(0, args.n_classes, (args.batch_size,), generator=g)) for _ in range(n)]


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--lr", type=float, default=0.003)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--n-classes", type=int, default=2)
    p.add_argument("--print-every", type=int, default=2)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = get_args(["--lr", "0.0"])  # dry run: weights stay put so gradients are comparable
    model = build_model(args)
    model.classifier.drop.p = 0.0
    trainloader, testloader = make_loader(3, args, 0), make_loader(2, args, 1)
    criterion = train(model, trainloader, testloader, args)
    w = model.classifier.fc1.weight
    per_batch = []
    for inputs, labels in trainloader:
        g, = torch.autograd.grad(criterion(model(inputs), labels), w)
        per_batch.append(g)
    if torch.allclose(w.grad, sum(per_batch), atol=1e-6) and not torch.allclose(w.grad, per_batch[-1]):
        print("BUGGY: classifier gradient is the sum over all batches (never zeroed)")
    else:
        print("gradient is per-batch")
