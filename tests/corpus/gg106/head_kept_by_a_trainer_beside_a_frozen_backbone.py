"""A depth head kept by a trainer object, fed by a frozen backbone run in inference mode (GG106).

The backbone is frozen whole by a loop over its parameters, so every module of the file might
be the frozen one, except a layer that a plain trainer class builds for itself and only ever
calls or hands to its optimizer: no freeze can reach it, and its parameters require grad.
`HeadTrainer.embed` runs the backbone inside `torch.inference_mode()`, so the features are
inference tensors, and the head's nn.Linear must save them for its weight's gradient:
"Inference tensors cannot be saved for backward" (checked with torch 2.13.0 below).

Look-alikes: a trainer computing the features under `torch.no_grad()`, and one that hands
its head out by a method (the caller freezes it, so nothing is saved and the step runs;
a layer handed out may be frozen anywhere, so it stays unknown).

Modelled on facebookresearch/dinov2#399 (a frozen ViT backbone with a trainable depth head,
fine-tuned after a forward written for inference).
"""

import torch
from torch import nn


class HeadTrainer:
    def __init__(self, backbone, width):
        self.backbone = backbone
        self.head = nn.Linear(width, 1)
        self.optimizer = torch.optim.Adam(self.head.parameters(), lr=1e-3)

    def embed(self, images):
        with torch.inference_mode():
            return self.backbone(images)

    def fit(self, images, depth):
        feats = self.embed(images)
        loss = (self.head(feats) - depth).pow(2).mean()  # expect: GG106
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


class NoGradTrainer:
    def __init__(self, backbone, width):
        self.backbone = backbone
        self.depth_head = nn.Linear(width, 1)
        self.optimizer = torch.optim.Adam(self.depth_head.parameters(), lr=1e-3)

    def fit(self, images, depth):
        with torch.no_grad():
            feats = self.backbone(images)
        loss = (self.depth_head(feats) - depth).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


class SharedHeadTrainer:
    def __init__(self, backbone, width):
        self.backbone = backbone
        self.shared_head = nn.Linear(width, 1)

    def head_module(self):
        return self.shared_head

    def score(self, images):
        with torch.inference_mode():
            feats = self.backbone(images)
        return self.shared_head(feats).mean()


def main():
    backbone = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
    for parameter in backbone.parameters():
        parameter.requires_grad = False
    images, depth = torch.randn(4, 8), torch.randn(4, 1)
    try:
        HeadTrainer(backbone, 8).fit(images, depth)
    except RuntimeError as error:
        assert "Inference tensors cannot be saved for backward" in str(error)
    else:
        raise AssertionError("expected the inference features to be refused")
    NoGradTrainer(backbone, 8).fit(images, depth)
    shared = SharedHeadTrainer(backbone, 8)
    shared.head_module().requires_grad_(False)
    assert not shared.score(images).requires_grad


if __name__ == "__main__":
    main()
