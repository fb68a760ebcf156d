"""Look-alikes of GG112 that are correct, from the patterns of real code: Hugging Face
encoders checkpoint each layer on hidden states that come out of a trainable embedding (or
that `enable_input_require_grads` hooks), with `use_reentrant` passed through a partial; timm
wraps its blocks in `checkpoint_seq`, and its feature wrappers
(huggingface/pytorch-image-models, timm/models/_features.py) run the first module plainly
and checkpoint only the later ones, whose input then has history; newer code passes `use_reentrant=False`; inference runs
checkpointed models under no_grad; frozen backbones and parameter-free activations lose
nothing when checkpointed.
"""

import functools

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.attn = nn.Linear(width, width)
        self.mlp = nn.Linear(width, width)

    def forward(self, hidden_states, attention_mask=None):
        return hidden_states + self.mlp(F.gelu(self.attn(hidden_states)))


class Encoder(nn.Module):
    def __init__(self, vocab=100, width=32, depth=2):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, width)
        self.layer = nn.ModuleList([Layer(width) for _ in range(depth)])
        self.gradient_checkpointing = False
        self._gradient_checkpointing_func = functools.partial(checkpoint, use_reentrant=True)

    def forward(self, input_ids, attention_mask=None):
        hidden_states = self.embeddings(input_ids)
        for layer_module in self.layer:
            if self.gradient_checkpointing and self.training:

                def create_custom_forward(module):
                    def custom_forward(*inputs):
                        return module(*inputs)

                    return custom_forward

                hidden_states = torch.utils.checkpoint.checkpoint(
                    create_custom_forward(layer_module), hidden_states, attention_mask
                )
            else:
                hidden_states = layer_module(hidden_states, attention_mask)
        return hidden_states


class TimmLike(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(nn.Linear(16, 16), nn.GELU(), nn.Linear(16, 16))
        self.grad_checkpointing = True

    def forward(self, x):
        from timm.models._manipulate import checkpoint_seq

        if self.grad_checkpointing and not torch.jit.is_scripting():
            x = checkpoint_seq(self.blocks, x)
        else:
            x = self.blocks(x)
        return x


def stem_then_checkpointed_stages():
    stem = nn.Conv2d(3, 8, 3, padding=1)
    stages = [nn.Conv2d(8, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1)]
    x = torch.randn(2, 3, 16, 16)
    x = stem(x)
    for module in stages:
        x = checkpoint(module, x, use_reentrant=True)
    return x.mean()


def trainable_embedding(ids):
    embed = nn.Embedding(100, 16)
    block = nn.Linear(16, 16)
    hidden = checkpoint(block, embed(ids), use_reentrant=True)
    return hidden.sum()


def non_reentrant(loader):
    block, head = nn.Linear(16, 16), nn.Linear(16, 2)
    for x, y in loader:
        z = torch.randn(x.shape[0], 16)
        hidden = checkpoint(block, z, use_reentrant=False)
        F.cross_entropy(head(hidden), y).backward()


def input_made_to_require_grad():
    block = nn.Linear(16, 16)
    x = torch.randn(4, 16)
    x.requires_grad_(True)
    out = checkpoint(block, x, use_reentrant=True)
    out.sum().backward()


@torch.no_grad()
def predict(images):
    stage = nn.Conv2d(3, 8, 3)
    return checkpoint(stage, images.float(), use_reentrant=True)


def inference(model_input):
    block = nn.Linear(16, 16)
    with torch.no_grad():
        x = torch.randn(4, 16)
        out = checkpoint(block, x)
    return out


def activation_only():
    act = nn.SiLU()
    head = nn.Linear(16, 1)
    hidden = checkpoint(act, torch.zeros(4, 16), use_reentrant=True)
    head(hidden).sum().backward()


def forward_arguments(block, hidden):
    # What the caller passes is not known here: it may require grad.
    return checkpoint(block, hidden, use_reentrant=True)


def loader_batches(loader):
    block = nn.Linear(16, 16)
    hidden = None
    for x in loader:
        hidden = checkpoint(block, x + hidden if hidden is not None else x)
    return hidden


frozen_backbone = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU())
frozen_backbone.requires_grad_(False)
probe = nn.Linear(8, 2)
features = checkpoint(frozen_backbone, torch.randn(2, 3, 8, 8), use_reentrant=True)
probe(features.mean(dim=(2, 3))).sum().backward()
