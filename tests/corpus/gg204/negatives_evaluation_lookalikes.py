"""Evaluation done right, and loops that resemble it but must keep their graphs."""

import torch
from torch import nn

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))
teacher = nn.Linear(20, 5)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


def make_loader(batches):
    return [(torch.randn(8, 20), torch.randint(0, 5, (8,))) for _ in range(batches)]


def validate_under_no_grad(loader):
    model.eval()
    preds = []
    with torch.no_grad():
        for x, _ in loader:
            preds.append(model(x))
    return torch.cat(preds)


@torch.no_grad()
def validate_decorated(loader):
    model.eval()
    total = 0.0
    for x, y in loader:
        total += criterion(model(x), y)
    return total


def validate_numbers(loader):
    model.eval()
    total = 0.0
    kept = []
    for x, y in loader:
        out = model(x)
        total += criterion(out, y).item()
        kept.append(out.detach())
        kept.append(out.argmax(dim=1))
    return total, kept


def test_time_adaptation(loader):
    model.eval()  # frozen batch-norm statistics, but the weights still adapt
    losses = []
    for x, _ in loader:
        loss = model(x).logsumexp(dim=1).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def other_model_in_eval(loader):
    teacher.eval()
    outs = []
    for x, _ in loader:
        outs.append(model(x))
    return outs


def back_to_training(loader):
    model.eval()
    outs = []
    model.train()
    for x, _ in loader:
        outs.append(model(x))
    return outs


def evaluate(loader):
    model.eval()
    preds = []
    for x, _ in loader:
        preds.append(model(x))
    return preds


if __name__ == "__main__":
    loader = make_loader(2)
    validate_under_no_grad(loader)
    validate_decorated(loader)
    validate_numbers(loader)
    test_time_adaptation(loader)
    with torch.no_grad():
        evaluate(loader)  # the caller turns recording off
