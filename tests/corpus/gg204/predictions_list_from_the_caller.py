"""Evaluation appends outputs to a list the caller passed in, without no_grad (GG204).

Modelled on https://github.com/facebookarchive/loop/issues/57: a speech model's
`evaluate(model, criterion, loader, ...)` put the model in eval mode but ran without
`torch.no_grad()`, and memory grew during evaluation. Here the outputs are collected into
a `predictions` list that `main` creates and passes in, so the list outlives every batch of
the loop; the criterion is a loss class of the file that holds no parameters, so its mode
does not matter. The look-alike below runs the same loop under no_grad.
"""

import torch
from torch import nn


class Decoder(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        states, _ = self.rnn(x)
        return self.out(states)


class MaskedMSE(nn.Module):
    def forward(self, output, target):
        mask = (target != 0).float()
        return ((output - target) ** 2 * mask).sum() / mask.sum().clamp(min=1)


def evaluate(model, criterion, loader, predictions):
    model.eval()
    total = 0.0
    for inputs, targets in loader:  # expect: GG204
        output = model(inputs)
        total += criterion(output, targets).item()
        predictions.append(output)
    return total / len(loader)


def evaluate_without_graphs(model, criterion, loader, predictions):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for inputs, targets in loader:
            output = model(inputs)
            total += criterion(output, targets).item()
            predictions.append(output)
    return total / len(loader)


def main():
    torch.manual_seed(0)
    model, criterion = Decoder(), MaskedMSE()
    loader = [(torch.randn(2, 5, 8), torch.randn(2, 5, 8)) for _ in range(3)]
    kept, clean = [], []
    evaluate(model, criterion, loader, kept)
    evaluate_without_graphs(model, criterion, loader, clean)
    # The silent effect: every kept output still holds its graph.
    assert all(p.grad_fn is not None for p in kept)
    assert all(p.grad_fn is None for p in clean)


if __name__ == "__main__":
    main()
    print("evaluation kept every batch's graph")
