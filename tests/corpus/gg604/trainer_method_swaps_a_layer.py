"""A probing harness keeps its optimizer in `__init__`; a method later swaps the encoder's
output layer for one sized to a new label set, and the training method steps the old
optimizer.

The optimizer holds the parameters the network had when the harness was built, so the new
layer receives gradients that no step ever applies (checked with torch 2.13.0). The same
mistake, an optimizer whose parameters miss a task head added afterwards, was reported in
https://github.com/huggingface/pytorch-openai-transformer-lm/pull/6.
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


class ProbeHarness:
    def __init__(self, network, rate):
        self.network = network
        self.optim = torch.optim.Adam(self.network.parameters(), lr=rate)
        self.history = []

    def relabel(self, labels):
        width = self.network.readout.in_features
        self.network.readout = nn.Linear(width, labels)  # expect: GG604

    def _one_batch(self, x, y):
        scores = self.network(x)
        loss = F.cross_entropy(scores, y)
        self.optim.zero_grad()
        loss.backward()
        self.optim.step()
        return loss.item()

    def run(self, batches):
        for x, y in batches:
            self.history.append(self._one_batch(x, y))


def batches(labels, count=4):
    return [(torch.randn(10, 6), torch.randint(0, labels, (10,))) for _ in range(count)]


if __name__ == "__main__":
    torch.manual_seed(0)
    harness = ProbeHarness(Encoder(12, 2), 1e-2)
    harness.relabel(5)
    start = harness.network.readout.weight.detach().clone()
    harness.run(batches(5))
    assert not torch.equal(start, harness.network.readout.weight), "the new readout never trains"
