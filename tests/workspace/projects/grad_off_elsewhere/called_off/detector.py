"""A small box detector: `generate` returns numpy arrays of its top boxes.

Modelled on chenyuntc/pytorch-book, Chapter13/model.py (`Model.generate`), written anew:
the method ends in `.cpu().numpy()` of the network's outputs, which raises while grad is
recorded, and every caller lives in another file of the project.
"""
import torch
from torch import nn


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(4, 8)
        self.boxes = nn.Linear(8, 4)
        self.scores = nn.Linear(8, 1)

    def forward(self, x):
        features = torch.relu(self.backbone(x))
        return self.boxes(features), self.scores(features).squeeze(1)

    def generate(self, x, k=2):
        boxes, scores = self(x)
        top, index = scores.topk(k)
        return boxes[index].cpu().numpy(), top.cpu().numpy()

    def score(self, x):
        """The scores of `x`, as numpy."""
        return self(x)[1].numpy()
