"""Invertible-ResNet style classifier: test utility decorated with no_grad.

Modelled on: https://github.com/jhjacobsen/invertible-resnet/issues/15 (counterpart)

Look-alike: the test loop body is the same as in the report (eval mode,
forward every batch, keep the logits for calibration), and there is no
``with torch.no_grad():`` block in it, but the whole ``test`` function is
decorated with ``@torch.no_grad()``, so no graph is recorded.
"""
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
        F.cross_entropy(out, targets).backward()
        optimizer.step()


@torch.no_grad()
def test(model, testloader, criterion, epoch):
    model.eval()
    test_loss, correct, total = 0.0, 0, 0
    all_logits = []
    for inputs, targets in testloader:
        out, _ = model(inputs)
        loss = criterion(out, targets)
        test_loss += loss.item()
        _, predicted = torch.max(out, 1)
        total += targets.size(0)
        correct += predicted.eq(targets).sum().item()
        all_logits.append(out)
    return torch.cat(all_logits), correct / total


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(256, 12)
    y = (x[:, :3].sum(1) > 0).long()
    trainloader = [(x[i:i + 32], y[i:i + 32]) for i in range(0, 192, 32)]
    testloader = [(x[i:i + 32], y[i:i + 32]) for i in range(192, 256, 32)]
    model = IResNetClassifier(12, 3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    train(model, opt, trainloader)
    logits, acc = test(model, testloader, nn.CrossEntropyLoss(), 0)
    assert not logits.requires_grad
    print("OK")
