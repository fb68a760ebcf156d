"""Features from an encoder handed in from outside, switched to eval mode and run inside a
helper decorated with `@torch.inference_mode()`, then fed to a trainable head: the head's
`nn.Linear` saves its input for the weight gradient and the input is an inference tensor, so
the forward raises "Inference tensors cannot be saved for backward" (checked with torch
2.13.0). The `.eval()` call is what tells GradGuard the encoder is an `nn.Module`; an encoder
it knows nothing about stays silent.

Sources (rewritten in our own words, structure kept):
* https://github.com/facebookresearch/dinov2/issues/472 - a frozen backbone run in inference
  mode under a trainable head: "Inference tensors cannot be saved for backward".
* https://github.com/snowflakedb/ArcticTraining/pull/265 - a trainer method decorated with
  `@torch.inference_mode()` that calls `self.model.eval()`; mixing it with training raised
  the same error, and the fix uses `torch.no_grad()`.
"""

import torch
import torch.nn.functional as F
from torch import nn


class LinearProbe:
    def __init__(self, encoder, dim=8, classes=3):
        self.encoder = encoder
        self.head = nn.Linear(dim, classes)
        self.optimizer = torch.optim.SGD(self.head.parameters(), lr=0.1)

    @torch.inference_mode()
    def encode(self, images):
        self.encoder.eval()
        return self.encoder(images)

    @torch.no_grad()
    def encode_no_grad(self, images):
        self.encoder.eval()
        return self.encoder(images)

    def fit_batch(self, images, labels):
        feats = self.encode(images)
        loss = F.cross_entropy(self.head(feats), labels)  # expect: GG106
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def fit_batch_no_grad(self, images, labels):
        feats = self.encode_no_grad(images)
        loss = F.cross_entropy(self.head(feats), labels)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def fit_batch_cloned(self, images, labels):
        feats = self.encode(images).clone()
        loss = F.cross_entropy(self.head(feats), labels)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def accuracy(self, images, labels):
        with torch.inference_mode():
            preds = self.head(self.encode(images)).argmax(dim=1)
        return (preds == labels).float().mean().item()


@torch.inference_mode()
def extract(encoder, images):
    encoder.eval()
    return encoder(images)


@torch.inference_mode()
def extract_unknown(encoder, images):
    return encoder(images)


def train_probe(encoder, loader, dim=8, classes=3):
    head = nn.Linear(dim, classes)
    optimizer = torch.optim.Adam(head.parameters(), lr=1e-3)
    for images, labels in loader:
        feats = extract(encoder, images)
        logits = head(feats)  # expect: GG106
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_probe_unknown_encoder(encoder, loader, dim=8, classes=3):
    """Nothing says `encoder` is a module (it might return its input): silent."""
    head = nn.Linear(dim, classes)
    optimizer = torch.optim.Adam(head.parameters(), lr=1e-3)
    for images, labels in loader:
        feats = extract_unknown(encoder, images)
        loss = F.cross_entropy(head(feats), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


encoder = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Dropout(0.1))
batch = (torch.randn(4, 5), torch.tensor([0, 1, 2, 0]))
probe = LinearProbe(encoder)
for attempt in (lambda: probe.fit_batch(*batch), lambda: train_probe(encoder, [batch])):
    try:
        attempt()
        raise AssertionError("expected an error")
    except RuntimeError as error:
        assert "Inference tensors cannot be saved for backward" in str(error)
probe.fit_batch_no_grad(*batch)
probe.fit_batch_cloned(*batch)
assert 0.0 <= probe.accuracy(*batch) <= 1.0
