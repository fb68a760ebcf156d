"""A backbone class of this file run under torch.inference_mode(), its features then used to
train a head (GG106).

The features a module of the file computes under inference mode are inference tensors,
just as a torch.nn layer's: the head's Linear saves them for backward and raises "Inference
tensors cannot be saved for backward". The structure follows
https://github.com/deepjavalibrary/djl/issues/2144 (embeddings from a predictor that runs in
inference mode, fed to a classifier being trained) and the clone workaround the error message
names since https://github.com/pytorch/pytorch/pull/161164; written in our own words.
Checked under torch 2.13.0.
"""

import torch
from torch import nn


class FeatureExtractor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 32), nn.ReLU())

    def forward(self, x):
        return self.body(x)


def extract(backbone, batch):
    with torch.inference_mode():
        return backbone(batch)


def train_head(steps):
    backbone = FeatureExtractor()
    head = nn.Linear(32, 2)
    opt = torch.optim.SGD(head.parameters(), lr=0.1)
    for step in range(steps):
        feats = extract(backbone, torch.randn(8, 16))
        loss = nn.functional.cross_entropy(head(feats), torch.randint(0, 2, (8,)))  # expect: GG106
        opt.zero_grad()
        loss.backward()
        opt.step()


def train_head_on_copies(steps):
    backbone = FeatureExtractor()
    head = nn.Linear(32, 2)
    opt = torch.optim.SGD(head.parameters(), lr=0.1)
    for step in range(steps):
        feats = extract(backbone, torch.randn(8, 16)).clone()
        loss = nn.functional.cross_entropy(head(feats), torch.randint(0, 2, (8,)))
        opt.zero_grad()
        loss.backward()
        opt.step()


def evaluate_head(head):
    backbone = FeatureExtractor()
    with torch.inference_mode():
        feats = backbone(torch.randn(8, 16))
        return head(feats).argmax(1)


train_head_on_copies(2)
evaluate_head(nn.Linear(32, 2))
try:
    train_head(1)
except RuntimeError as error:
    assert "Inference tensors cannot be saved for backward" in str(error)
else:
    raise AssertionError("train_head ran")
