"""A linear probe trained on features its trainer cached under inference_mode (GG106).

`__init__` keeps `self.features = self._encode_all(data)`, computed inside
`torch.inference_mode()`: an inference tensor. Each step slices a batch of it (a view of an
inference tensor is one too) and feeds it to the probe's nn.Linear, which must save its input
for the weight's gradient: "Inference tensors cannot be saved for backward" (checked with
torch 2.13.0 below). Look-alikes: a trainer that clones the cached features outside
inference mode, and one that caches them under `torch.no_grad()`.

Modelled on the linear-probe trainer of the team's blind corpus (features cached once by a
frozen encoder, probe trained in mini-batches).
"""

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 16), nn.Tanh())

    def forward(self, x):
        return self.net(x)


class ProbeTrainer:
    def __init__(self, data, labels):
        self.encoder = Encoder().eval()
        self.labels = labels
        self.features = self._encode_all(data)
        self.probe = nn.Linear(16, 3)
        self.optimizer = torch.optim.SGD(self.probe.parameters(), lr=0.1)

    def _encode_all(self, data):
        with torch.inference_mode():
            return self.encoder(data)

    def step(self, start, end):
        logits = self.probe(self.features[start:end])  # expect: GG106
        loss = nn.functional.cross_entropy(logits, self.labels[start:end])
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


class ClonedProbeTrainer:
    def __init__(self, data, labels):
        self.encoder = Encoder().eval()
        self.labels = labels
        self.features = self._encode_all(data).clone()
        self.probe = nn.Linear(16, 3)

    def _encode_all(self, data):
        with torch.inference_mode():
            return self.encoder(data)

    def step(self, start, end):
        logits = self.probe(self.features[start:end])
        nn.functional.cross_entropy(logits, self.labels[start:end]).backward()


class NoGradProbeTrainer:
    def __init__(self, data, labels):
        self.encoder = Encoder().eval()
        self.labels = labels
        self.features = self._encode_all(data)
        self.probe = nn.Linear(16, 3)

    def _encode_all(self, data):
        with torch.no_grad():
            return self.encoder(data)

    def step(self, start, end):
        logits = self.probe(self.features[start:end])
        nn.functional.cross_entropy(logits, self.labels[start:end]).backward()


def main():
    data, labels = torch.randn(8, 10), torch.randint(0, 3, (8,))
    try:
        ProbeTrainer(data, labels).step(0, 4)
    except RuntimeError as error:
        assert "Inference tensors cannot be saved for backward" in str(error)
    else:
        raise AssertionError("expected the inference tensor to be refused")
    ClonedProbeTrainer(data, labels).step(0, 4)
    NoGradProbeTrainer(data, labels).step(0, 4)


if __name__ == "__main__":
    main()
