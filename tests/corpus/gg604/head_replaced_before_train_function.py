"""The head is replaced in `main`, then the stale optimizer is handed to `train(...)` (GG604).

`main` builds the optimizer from the pretrained model, swaps the classifier for the new label
set, and only then calls `train(model, batches, optimizer)`: the steps happen in another
function, but every call hands over an optimizer that never held the new head, so the head
keeps its initial weights (checked with torch 2.13.0 below). Look-alikes: the optimizer is
given the new head with `add_param_group` before training, and a model trained before its
head is swapped (the optimizer was fine while it trained).

Modelled on the transfer-learning scripts of the team's blind corpus (a pretrained encoder
adapted to three classes in `main`, trained by a `train` function).
"""

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
        self.classifier = nn.Linear(16, classes)

    def forward(self, x):
        return self.classifier(self.features(x))


def train(model, batches, optimizer):
    for x, y in batches:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def fit(model, batches, optimizer):
    for x, y in batches:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()


def adapt(batches):
    model = Encoder()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.classifier = nn.Linear(16, 3)  # expect: GG604
    before = model.classifier.weight.detach().clone()
    train(model, batches, optimizer)
    return torch.equal(before, model.classifier.weight)


def adapt_with_new_group(batches):
    model = Encoder()
    optimizer = torch.optim.SGD(model.features.parameters(), lr=0.1)
    model.classifier = nn.Linear(16, 3)
    optimizer.add_param_group({"params": model.classifier.parameters()})
    before = model.classifier.weight.detach().clone()
    fit(model, batches, optimizer)
    return torch.equal(before, model.classifier.weight)


def pretrain_then_swap(batches):
    model = Encoder(classes=3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    fit(model, batches, optimizer)
    model.classifier = nn.Linear(16, 3)
    return model


def main():
    torch.manual_seed(0)
    batches = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(3)]
    assert adapt(batches), "the new head trained"
    assert not adapt_with_new_group(batches)
    pretrain_then_swap(batches)


if __name__ == "__main__":
    main()
