"""Features computed by a helper called under inference_mode feed a trainable head (GG106).

`encode(images)` runs the frozen backbone and concatenates two views; called inside
`torch.inference_mode()`, every tensor it allocates is an inference tensor, so the head's
nn.Linear cannot save it for backward: "Inference tensors cannot be saved for backward"
(checked with torch 2.13.0 below). What a helper only hands back (`pick(batch)`, a view of a
tensor made outside) is not one, and the look-alike computes under `torch.no_grad()`.

Modelled on the rollout/feature-caching helpers of the team's second blind corpus.
"""

import torch
from torch import nn

backbone = nn.Linear(4, 4)
head = nn.Linear(4, 2)


def encode(images):
    return torch.cat([backbone(images), backbone(images.flip(0))], 0)


def pick(batch):
    return batch[0:2]


def train_step(images):
    with torch.inference_mode():
        feats = encode(images)
    loss = head(feats).sum()  # expect: GG106
    loss.backward()


def train_step_kept(images, batch):
    with torch.inference_mode():
        rows = pick(batch)
    loss = head(rows).sum()
    loss.backward()


def train_step_no_grad(images):
    with torch.no_grad():
        feats = encode(images)
    loss = head(feats).sum()
    loss.backward()


if __name__ == "__main__":
    images = torch.randn(3, 4)
    try:
        train_step(images)
    except RuntimeError as error:
        assert "Inference tensors cannot be saved for backward" in str(error)
    else:
        raise AssertionError("expected the inference tensor to be refused")
    train_step_kept(images, torch.randn(3, 4))
    train_step_no_grad(images)
