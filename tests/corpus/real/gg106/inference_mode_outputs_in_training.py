"""Tensors made under torch.inference_mode() later saved for backward (GG106), and fixes.

Sources (rewritten in our own words, structure kept):
* https://github.com/snowflakedb/ArcticTraining/pull/265 - the trainer's `evaluate` method
  carried `@torch.inference_mode()`; mixing train and eval then raised "Inference tensors
  cannot be saved for backward"; the fix uses `torch.no_grad()`.
* https://github.com/facebookresearch/dinov2/issues/472 - features from a backbone run in
  inference mode feed a trainable head: "Inference tensors cannot be saved for backward".
* https://github.com/huggingface/diffusers/issues/1658 - tensors cached while saving a
  checkpoint (an inference-mode block) are reused by the next training step.
"""

import torch
from torch import nn


class LinearProbeTrainer:
    """dinov2#472: features under inference_mode, a trainable linear head on them."""

    def __init__(self, backbone) -> None:
        self.backbone = backbone
        self.head = nn.Linear(8, 3)
        self.optimizer = torch.optim.SGD(self.head.parameters(), lr=0.1)

    @torch.inference_mode()
    def extract(self, images):
        return self.backbone(images)

    def train_step(self, images, labels):
        features = self.extract(images)
        logits = self.head(features)  # missed: GG106
        loss = nn.functional.cross_entropy(logits, labels)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


# Source: dinov2#472 with everything in one function and the backbone built here.
def train_probe(images, labels, steps):
    backbone = nn.Sequential(nn.Linear(16, 8), nn.ReLU())
    head = nn.Linear(8, 3)
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    for _ in range(steps):
        with torch.inference_mode():
            features = backbone(images)
        loss = nn.functional.cross_entropy(head(features), labels)  # expect: GG106
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


# Source: diffusers#1658, text embeddings cached under inference mode at checkpoint time.
def train_with_cached_embeddings(unet, text_encoder, tokens, latents, steps):
    optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-4)
    with torch.inference_mode():
        encoder_hidden_states = text_encoder(tokens)
    for _ in range(steps):
        noise = torch.randn_like(latents)
        noise_pred = unet(latents + noise, encoder_hidden_states)
        loss = nn.functional.mse_loss(noise_pred, noise)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


class CrossAttentionUnet(nn.Module):
    """Stands in for the UNet: it multiplies its input with the projected conditioning."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, latents, cond):
        return latents * self.proj(cond)  # missed: GG106


# Negative, ArcticTraining#265 fix: evaluation under no_grad, training unaffected.
class Trainer:
    def __init__(self, model) -> None:
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    @torch.no_grad()
    def evaluate(self, batches):
        self.model.eval()
        return [self.model(x).mean().item() for x, _ in batches]

    def train(self, batches):
        self.model.train()
        for x, y in batches:
            loss = nn.functional.mse_loss(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()


# Negative: features cloned out of inference mode before the trainable head (the error
# message's own advice), and a head fed by features computed under no_grad.
def train_probe_cloned(images, labels, steps):
    backbone = nn.Sequential(nn.Linear(16, 8), nn.ReLU())
    head = nn.Linear(8, 3)
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    with torch.inference_mode():
        cached = backbone(images)
    features = cached.clone()
    for _ in range(steps):
        loss = nn.functional.cross_entropy(head(features), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_probe_no_grad(images, labels, steps):
    backbone = nn.Sequential(nn.Linear(16, 8), nn.ReLU())
    head = nn.Linear(8, 3)
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    for _ in range(steps):
        with torch.no_grad():
            features = backbone(images)
        loss = nn.functional.cross_entropy(head(features), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


# Negative: inference-mode predictions only compared and logged, never saved for backward.
@torch.inference_mode()
def predict(model, images):
    return model(images).argmax(dim=1)


def report_accuracy(model, images, labels):
    preds = predict(model, images)
    return (preds == labels).float().mean().item()
