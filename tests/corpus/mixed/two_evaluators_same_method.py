"""Two classes of one file define `predict(self, model, batches)`: one for a validation
report and one for exporting predictions. Each call resolves to one class, so each method
learns `model` (a module) from its own calls. The exporter converts the model's output to
NumPy outside `torch.no_grad()`: "Can't call numpy() on Tensor that requires grad" (GG502);
the report runs under no_grad and is fine."""

import numpy as np
import torch
from torch import nn


class Report:
    def predict(self, model, batches):
        model.eval()
        with torch.no_grad():
            scores = [model(x).softmax(dim=1).numpy() for x in batches]
        return np.concatenate(scores).mean(axis=0)


class Exporter:
    def __init__(self, path):
        self.path = path

    def predict(self, model, batches):
        rows = []
        for x in batches:
            rows.append(model(x).numpy())  # expect: GG502
        np.save(self.path, np.concatenate(rows))


def main():
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    batches = [torch.randn(4, 8) for _ in range(3)]
    print(Report().predict(model, batches))
    Exporter("predictions.npy").predict(model, batches)


main()
