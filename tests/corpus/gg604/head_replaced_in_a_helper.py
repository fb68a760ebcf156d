"""A helper replaces the classifier after the optimizer was built (GG604).

Modelled on the trainer of https://github.com/feedly/transfer-nlp/pull/14: a
`replace_final_layer` step swaps the model's classifier for one sized to the new labels,
and the review asks how the optimizer learns about the new layer (reset it, or
`add_param_group`). Here the training script builds its optimizer first and calls the
helper afterwards, so the optimizer holds the old classifier's tensors: the new one gets
gradients and never moves. The look-alikes call the helper before building the optimizer,
use a helper that also builds the optimizer it returns, and replace a layer the forward
never runs.
"""

import torch
import torch.nn.functional as F
from torch import nn

SETTINGS = {"features": 6, "hidden": 8, "labels": 3, "lr": 0.5}


class TextClassifier(nn.Module):
    def __init__(self, features, hidden, labels):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(features, hidden), nn.Tanh())
        self.classifier = nn.Linear(hidden, labels)
        self.probe = nn.Linear(hidden, 1)  # kept for analysis, never run by forward

    def forward(self, x):
        return self.classifier(self.encoder(x))


def replace_final_layer(model, labels):
    model.classifier = nn.Linear(model.classifier.in_features, labels)  # expect: GG604


def replace_probe(model):
    model.probe = nn.Linear(model.probe.in_features, 2)


def fresh_head_and_optimizer(model, labels, lr):
    model.classifier = nn.Linear(model.classifier.in_features, labels)
    return torch.optim.SGD(model.parameters(), lr=lr)


def fit(model, optimizer, steps=3):
    x = torch.randn(16, SETTINGS["features"])
    y = torch.randint(0, SETTINGS["labels"], (16,))
    for _ in range(steps):
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


def build():
    return TextClassifier(SETTINGS["features"], SETTINGS["hidden"], 5)


def stale_head():
    model = build()
    optimizer = torch.optim.SGD(model.parameters(), lr=SETTINGS["lr"])
    replace_final_layer(model, SETTINGS["labels"])
    before = model.classifier.weight.detach().clone()
    x = torch.randn(16, SETTINGS["features"])
    y = torch.randint(0, SETTINGS["labels"], (16,))
    for _ in range(3):
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
    return torch.equal(before, model.classifier.weight)


def head_before_optimizer():
    model = build()
    replace_final_layer(model, SETTINGS["labels"])
    optimizer = torch.optim.SGD(model.parameters(), lr=SETTINGS["lr"])
    before = model.classifier.weight.detach().clone()
    fit(model, optimizer)
    return torch.equal(before, model.classifier.weight)


def head_with_its_optimizer():
    model = build()
    optimizer = torch.optim.SGD(model.parameters(), lr=SETTINGS["lr"])
    optimizer = fresh_head_and_optimizer(model, SETTINGS["labels"], SETTINGS["lr"])
    before = model.classifier.weight.detach().clone()
    fit(model, optimizer)
    return torch.equal(before, model.classifier.weight)


def probe_replaced():
    model = TextClassifier(SETTINGS["features"], SETTINGS["hidden"], SETTINGS["labels"])
    optimizer = torch.optim.SGD(model.parameters(), lr=SETTINGS["lr"])
    replace_probe(model)
    before = model.classifier.weight.detach().clone()
    fit(model, optimizer)
    return torch.equal(before, model.classifier.weight)


if __name__ == "__main__":
    torch.manual_seed(0)
    assert stale_head(), "the new classifier never changes"
    assert not head_before_optimizer()
    assert not head_with_its_optimizer()
    assert not probe_replaced()
    print("ok")
