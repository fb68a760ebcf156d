"""A keyword-spotting model whose pretrained front end is frozen before a helper trains it.

`KeywordSpotter` turns a waveform into frames with a convolutional `frontend`, runs a stack
of residual `MixerBlock`s, each under a reentrant checkpoint, and pools into a classifier.
`main` freezes the front end (a pretrained feature extractor kept fixed), then hands the
model to `train_epoch`, which runs the forward pass. The first checkpointed block gets the
output of the frozen front end on a waveform: nothing there requires grad, so the reentrant
checkpoint returns a tensor without history and no block learns (checked with torch 2.13.0:
every block's `.grad` stays None while the classifier trains); torch only warns "None of
the inputs have requires_grad=True".

The freeze is made by the caller, and the forward pass run by the helper it hands the model
to: the frozen layer travels with the argument.

Modelled on the report that a frozen first stage combined with reentrant checkpointing
leaves the rest of the network without gradients
(https://github.com/huggingface/transformers/issues/21381), written anew for this corpus.
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


class KeywordSpotter(nn.Module):
    def __init__(self, channels=8, depth=2, keywords=4):
        super().__init__()
        self.frontend = nn.Conv1d(1, channels, kernel_size=16, stride=8)
        self.blocks = nn.ModuleList([MixerBlock(channels) for _ in range(depth)])
        self.classifier = nn.Linear(channels, keywords)

    def forward(self, wave):
        frames = self.frontend(wave).transpose(1, 2)
        for block in self.blocks:
            frames = checkpoint(block, frames, use_reentrant=True)  # expect: GG112
        return self.classifier(frames.mean(dim=1))


def train_epoch(model, batches, optimizer):
    model.train()
    for wave, label in batches:
        loss = nn.functional.cross_entropy(model(wave), label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main():
    torch.manual_seed(0)
    model = KeywordSpotter()
    model.frontend.requires_grad_(False)
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
    batches = [(torch.randn(4, 1, 128), torch.randint(0, 4, (4,))) for _ in range(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        train_epoch(model, batches, optimizer)
    assert model.classifier.weight.grad is not None
    # Fails: the checkpointed blocks never get a gradient.
    assert all(p.grad is not None for p in model.blocks.parameters()), "the blocks did not train"


if __name__ == "__main__":
    main()
