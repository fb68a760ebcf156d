"""Feature hooks on one layer of a model, and direct `forward` calls (GG603).

A feature extractor hooks `backbone.stage2` and calls `backbone.stage2.forward(x)` to get
that stage's output alone: the hook on that very layer never runs, and the feature list
stays empty. Calling the whole model with `backbone.forward(x)` instead is harmless here:
`forward` calls `self.stage2(...)`, which runs the layer's hook, and the model itself has
no hook. Checked with torch 2.13.0.
"""

import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stage1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.stage2 = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        return self.pool(self.stage2(self.stage1(x))).flatten(1)


backbone = Backbone()
features = []
backbone.stage2.register_forward_hook(lambda module, inputs, output: features.append(output))

images = torch.randn(2, 3, 8, 8)
embedding = backbone.forward(images)
assert len(features) == 1, "the stage's hook runs when the whole model is called"

stage_only = backbone.stage2.forward(backbone.stage1(images))  # expect: GG603
assert len(features) == 1, "calling the stage's forward skipped its hook"
