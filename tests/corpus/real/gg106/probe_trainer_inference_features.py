"""A linear-probe trainer object extracts frozen-backbone features in a method decorated with
`@torch.inference_mode()` and feeds them to its trainable head in `train_step`: the head's
`nn.Linear` saves its input for the weight gradient, and the input is an inference tensor, so
the forward raises "Inference tensors cannot be saved for backward". The fixed twin extracts
under `torch.no_grad()`.

Sources (rewritten in our own words, structure kept):
* https://github.com/facebookresearch/dinov2/issues/472 - a frozen backbone run in inference
  mode, a trainable head on its outputs.
* https://github.com/pytorch/pytorch/pull/161164 - the error text and the advice to use
  `torch.no_grad()` for this.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        return self.pool(torch.relu(self.conv(x))).flatten(1)


class Probe:
    def __init__(self, backbone, classes=4):
        self.backbone = backbone.eval()
        self.head = nn.Linear(8, classes)
        self.opt = torch.optim.SGD(self.head.parameters(), lr=0.1)

    @torch.inference_mode()
    def features(self, images):
        return self.backbone(images)

    @torch.no_grad()
    def features_fixed(self, images):
        return self.backbone(images)

    def train_step(self, images, labels):
        feats = self.features(images)
        logits = self.head(feats)  # expect: GG106
        loss = F.cross_entropy(logits, labels)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()

    def train_step_fixed(self, images, labels):
        feats = self.features_fixed(images)
        logits = self.head(feats)
        loss = F.cross_entropy(logits, labels)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


probe = Probe(Backbone())
images, labels = torch.randn(2, 3, 8, 8), torch.tensor([0, 3])
try:
    probe.train_step(images, labels)
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "Inference tensors cannot be saved for backward" in str(error)
probe.train_step_fixed(images, labels)
