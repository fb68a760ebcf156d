"""A model whose constructor freezes its layers one by one, until none is left to train.

The author of https://github.com/open-mmlab/mmdetection/issues/3667 froze the backbone in
the detector's constructor, then the head as well, each with its own loop; the detector had
no other layer, so the first `loss.backward()` raised "element 0 of tensors does not require
grad and does not have a grad_fn". Here a keyword spotter does the same to its feature
extractor and its classifier (checked with torch 2.13.0).

Silent: a spotter that freezes only its feature extractor (the classifier trains), one that
freezes under a flag, one whose classifier a later method replaces by a new layer, and one
that leaves `__init__` early before the freeze can run.
"""

import torch
from torch import nn
import torch.nn.functional as F


class KeywordSpotter(nn.Module):
    def __init__(self, words):
        super().__init__()
        self.features = nn.Sequential(nn.Conv1d(1, 8, 5), nn.ReLU(), nn.AdaptiveAvgPool1d(1))
        self.classifier = nn.Linear(8, words)
        for p in self.features.parameters():
            p.requires_grad = False
        self.classifier.requires_grad_(False)  # expect: GG104

    def forward(self, wave):
        return self.classifier(self.features(wave).flatten(1))


class FeaturesFrozen(nn.Module):
    def __init__(self, words):
        super().__init__()
        self.features = nn.Sequential(nn.Conv1d(1, 8, 5), nn.ReLU(), nn.AdaptiveAvgPool1d(1))
        self.classifier = nn.Linear(8, words)
        self.features.requires_grad_(False)

    def forward(self, wave):
        return self.classifier(self.features(wave).flatten(1))


class FrozenOnRequest(nn.Module):
    def __init__(self, words, frozen):
        super().__init__()
        self.features = nn.Sequential(nn.Conv1d(1, 8, 5), nn.ReLU(), nn.AdaptiveAvgPool1d(1))
        self.classifier = nn.Linear(8, words)
        if frozen:
            self.features.requires_grad_(False)
            self.classifier.requires_grad_(False)

    def forward(self, wave):
        return self.classifier(self.features(wave).flatten(1))


class NewClassifierLater(nn.Module):
    def __init__(self, words):
        super().__init__()
        self.features = nn.Sequential(nn.Conv1d(1, 8, 5), nn.ReLU(), nn.AdaptiveAvgPool1d(1))
        self.classifier = nn.Linear(8, words)
        self.features.requires_grad_(False)
        self.classifier.requires_grad_(False)

    def retarget(self, words):
        self.classifier = nn.Linear(8, words)

    def forward(self, wave):
        return self.classifier(self.features(wave).flatten(1))


class MaybeLeavesEarly(nn.Module):
    def __init__(self, words, pretrained):
        super().__init__()
        self.features = nn.Sequential(nn.Conv1d(1, 8, 5), nn.ReLU(), nn.AdaptiveAvgPool1d(1))
        self.classifier = nn.Linear(8, words)
        if not pretrained:
            return
        self.features.requires_grad_(False)
        self.classifier.requires_grad_(False)

    def forward(self, wave):
        return self.classifier(self.features(wave).flatten(1))


def step(model, optimizer, wave, label):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(wave), label)
    loss.backward()
    optimizer.step()
    return loss.item()


def main():
    wave, label = torch.randn(4, 1, 32), torch.randint(0, 3, (4,))
    for model in (FeaturesFrozen(3), FrozenOnRequest(3, False), MaybeLeavesEarly(3, False)):
        step(model, torch.optim.SGD(model.parameters(), lr=0.1), wave, label)
    retargeted = NewClassifierLater(3)
    retargeted.retarget(5)
    step(retargeted, torch.optim.SGD(retargeted.classifier.parameters(), lr=0.1), wave, label % 5)
    spotter = KeywordSpotter(3)
    optimizer = torch.optim.SGD(spotter.parameters(), lr=0.1)
    optimizer.zero_grad()
    loss = F.cross_entropy(spotter(wave), label)
    loss.backward()
    optimizer.step()


if __name__ == "__main__":
    main()
