"""Look-alikes of `trainer_method_swaps_a_layer.py`: a method of a harness swaps a layer of
its network after `__init__` built the optimizer, but no step of that optimizer runs the
new layer afterwards.

`EarlyHarness` trains first and swaps the layer only for evaluation (no training follows);
`ParamFreeHarness` swaps in a layer without parameters; `ReportHarness.relabel` is called on
an instance of another class whose methods share the names. All run under torch 2.13.0:
silent.
"""

import torch
from torch import nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, width, labels):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(6, width), nn.GELU())
        self.readout = nn.Linear(width, labels)

    def forward(self, x):
        return self.readout(self.trunk(x))


class EarlyHarness:
    def __init__(self, network, rate):
        self.network = network
        self.optim = torch.optim.Adam(self.network.parameters(), lr=rate)

    def relabel(self, labels):
        self.network.readout = nn.Linear(self.network.readout.in_features, labels)

    def run(self, batches):
        for x, y in batches:
            loss = F.cross_entropy(self.network(x), y)
            self.optim.zero_grad()
            loss.backward()
            self.optim.step()


class ParamFreeHarness:
    def __init__(self, network, rate):
        self.network = network
        self.optim = torch.optim.SGD(self.network.parameters(), lr=rate)

    def drop_readout(self):
        self.network.readout = nn.Identity()

    def run(self, batches):
        for x, y in batches:
            loss = self.network(x).pow(2).mean()
            self.optim.zero_grad()
            loss.backward()
            self.optim.step()


class Report:
    def relabel(self, labels):
        self.labels = labels

    def run(self, batches):
        return len(batches)


def batches(labels, count=3):
    return [(torch.randn(10, 6), torch.randint(0, labels, (10,))) for _ in range(count)]


def early():
    harness = EarlyHarness(Encoder(12, 2), 1e-2)
    harness.run(batches(2))
    harness.relabel(5)
    with torch.no_grad():
        return harness.network(torch.randn(3, 6)).shape


def param_free():
    harness = ParamFreeHarness(Encoder(12, 2), 1e-2)
    harness.drop_readout()
    harness.run(batches(2))


def other_class():
    harness = EarlyHarness(Encoder(12, 2), 1e-2)
    report = Report()
    report.relabel(5)
    harness.run(batches(2))
    report.run(batches(2))


if __name__ == "__main__":
    torch.manual_seed(0)
    assert early() == (3, 5)
    param_free()
    other_class()
    print("ok")
