"""Look-alikes of a frozen front end handed to a training helper that stay silent.

Three keyword spotters are trained by the same helper after their callers froze a layer:
the first runs a trainable projection between its frozen front end and the checkpointed
blocks (the first checkpoint's input requires grad), the second checkpoints with
`use_reentrant=False`, and the third is trained first and frozen only afterwards (for
export). In each the checkpointed blocks train (checked with torch 2.13.0). Written for this
corpus after https://github.com/huggingface/transformers/issues/21381.
"""

import warnings

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class MixerBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.norm = nn.LayerNorm(channels)
        self.mix = nn.Linear(channels, channels)

    def forward(self, frames):
        return frames + torch.tanh(self.mix(self.norm(frames)))


class ProjectedSpotter(nn.Module):
    def __init__(self, channels=8, depth=2, keywords=4):
        super().__init__()
        self.frontend = nn.Conv1d(1, channels, kernel_size=16, stride=8)
        self.project = nn.Linear(channels, channels)
        self.blocks = nn.ModuleList([MixerBlock(channels) for _ in range(depth)])
        self.classifier = nn.Linear(channels, keywords)

    def forward(self, wave):
        frames = self.project(self.frontend(wave).transpose(1, 2))
        for block in self.blocks:
            frames = checkpoint(block, frames, use_reentrant=True)
        return self.classifier(frames.mean(dim=1))


class NonReentrantSpotter(nn.Module):
    def __init__(self, channels=8, depth=2, keywords=4):
        super().__init__()
        self.frontend = nn.Conv1d(1, channels, kernel_size=16, stride=8)
        self.blocks = nn.ModuleList([MixerBlock(channels) for _ in range(depth)])
        self.classifier = nn.Linear(channels, keywords)

    def forward(self, wave):
        frames = self.frontend(wave).transpose(1, 2)
        for block in self.blocks:
            frames = checkpoint(block, frames, use_reentrant=False)
        return self.classifier(frames.mean(dim=1))


class PlainSpotter(nn.Module):
    def __init__(self, channels=8, depth=2, keywords=4):
        super().__init__()
        self.frontend = nn.Conv1d(1, channels, kernel_size=16, stride=8)
        self.blocks = nn.ModuleList([MixerBlock(channels) for _ in range(depth)])
        self.classifier = nn.Linear(channels, keywords)

    def forward(self, wave):
        frames = self.frontend(wave).transpose(1, 2)
        for block in self.blocks:
            frames = checkpoint(block, frames, use_reentrant=True)
        return self.classifier(frames.mean(dim=1))


def train_projected(model, batches, optimizer):
    model.train()
    for wave, label in batches:
        loss = nn.functional.cross_entropy(model(wave), label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_non_reentrant(model, batches, optimizer):
    model.train()
    for wave, label in batches:
        loss = nn.functional.cross_entropy(model(wave), label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def fine_tune(model, batches, optimizer):
    model.train()
    for wave, label in batches:
        loss = nn.functional.cross_entropy(model(wave), label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def trainable(model):
    return [p for p in model.parameters() if p.requires_grad]


def main():
    torch.manual_seed(0)
    batches = [(torch.randn(4, 1, 128), torch.randint(0, 4, (4,))) for _ in range(3)]

    projected = ProjectedSpotter()
    projected.frontend.requires_grad_(False)
    train_projected(projected, batches, torch.optim.SGD(trainable(projected), lr=0.1))
    assert all(p.grad is not None for p in projected.blocks.parameters())

    non_reentrant = NonReentrantSpotter()
    non_reentrant.frontend.requires_grad_(False)
    train_non_reentrant(non_reentrant, batches, torch.optim.SGD(trainable(non_reentrant), lr=0.1))
    assert all(p.grad is not None for p in non_reentrant.blocks.parameters())

    exported = PlainSpotter()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "None of the inputs have requires_grad=True"
        fine_tune(exported, batches, torch.optim.SGD(exported.parameters(), lr=0.1))
    assert all(p.grad is not None for p in exported.blocks.parameters())
    exported.frontend.requires_grad_(False)
    exported.eval()


if __name__ == "__main__":
    main()
