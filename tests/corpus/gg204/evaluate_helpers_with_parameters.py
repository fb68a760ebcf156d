"""Evaluation helpers that receive the model as a parameter and keep every batch's output.

The shape of countless training scripts (and of the "GPU memory keeps growing during
validation" answers on discuss.pytorch.org: "wrap it in torch.no_grad()"): `evaluate(model,
loader)` called from `main()` with the model it built, predictions collected in a list for
metrics. Look-alikes: the same helper under `torch.no_grad()` (at the call or inside),
collecting `.item()` numbers or detached copies. A model GradGuard cannot otherwise see (one
loaded from a checkpoint) is still a module once `model.eval()` is called on it.
"""

import torch
from torch import nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))

    def forward(self, x):
        return self.body(x)


def evaluate(model, loader):
    model.eval()
    outputs = []
    for x, _ in loader:  # expect: GG204
        outputs.append(model(x))
    return torch.cat(outputs)


def evaluate_numbers(model, loader):
    model.eval()
    losses = []
    for x, y in loader:
        losses.append(F.cross_entropy(model(x), y).item())
    return sum(losses) / len(losses)


def evaluate_detached(model, loader):
    model.eval()
    outputs = []
    for x, _ in loader:
        outputs.append(model(x).detach())
    return torch.cat(outputs)


@torch.no_grad()
def evaluate_decorated(model, loader):
    model.eval()
    outputs = []
    for x, _ in loader:
        outputs.append(model(x))
    return torch.cat(outputs)


def evaluate_called_under_no_grad(model, loader):
    model.eval()
    outputs = []
    for x, _ in loader:
        outputs.append(model(x))
    return torch.cat(outputs)


def evaluate_unknown_model(model, loader):
    model.eval()
    outputs = []
    for x, _ in loader:  # expect: GG204
        outputs.append(model(x))
    return torch.cat(outputs)


def main(load_checkpoint):
    model = Classifier()
    loader = [(torch.randn(4, 10), torch.randint(0, 3, (4,)))]
    evaluate(model, loader)
    evaluate_numbers(model, loader)
    evaluate_detached(model, loader)
    evaluate_decorated(model, loader)
    with torch.no_grad():
        evaluate_called_under_no_grad(model, loader)
    evaluate_unknown_model(load_checkpoint(), loader)


if __name__ == "__main__":
    main(lambda: Classifier())
