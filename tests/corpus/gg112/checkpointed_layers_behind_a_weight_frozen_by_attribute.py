"""Reentrant checkpoints fed by an embedding whose only parameter was frozen (GG112).

Memory-starved fine-tuning scripts wrap each layer in `torch.utils.checkpoint.checkpoint`
and freeze the token embedding by its weight (`self.embed.weight.requires_grad = False`),
which is all an embedding holds. The first checkpoint then gets an input that does not
require grad: the reentrant checkpoint warns "None of the inputs have requires_grad=True.
Gradients will be None", its output has no history, and no layer after it trains
(transformers' `enable_input_require_grads()` exists for this setting; checked with torch
2.13.0).

Silent: the same model checkpointed with `use_reentrant=False`, and one whose input
projection keeps a trainable bias (its output requires grad).
"""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.ff = nn.Sequential(nn.LayerNorm(width), nn.Linear(width, width), nn.SiLU())

    def forward(self, h):
        return h + self.ff(h)


class CheckpointedTagger(nn.Module):
    def __init__(self, vocab=64, width=16, layers=3, reentrant=True):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.embed.weight.requires_grad = False
        self.layers = nn.ModuleList([Layer(width) for _ in range(layers)])
        self.tags = nn.Linear(width, 5)

    def forward(self, ids):
        h = self.embed(ids)
        for layer in self.layers:
            h = checkpoint(layer, h)  # expect: GG112
        return self.tags(h)


class NonReentrantTagger(nn.Module):
    def __init__(self, vocab=64, width=16, layers=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.embed.weight.requires_grad = False
        self.layers = nn.ModuleList([Layer(width) for _ in range(layers)])
        self.tags = nn.Linear(width, 5)

    def forward(self, ids):
        h = self.embed(ids)
        for layer in self.layers:
            h = checkpoint(layer, h, use_reentrant=False)
        return self.tags(h)


class ProjectedTagger(nn.Module):
    def __init__(self, width=16, layers=2):
        super().__init__()
        self.project = nn.Linear(8, width)
        self.project.weight.requires_grad = False
        self.layers = nn.ModuleList([Layer(width) for _ in range(layers)])
        self.tags = nn.Linear(width, 5)

    def forward(self, feats):
        h = self.project(feats)
        for layer in self.layers:
            h = checkpoint(layer, h)
        return self.tags(h)


def train_step(model, batch, targets, optimizer):
    logits = model(batch)
    loss = nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


if __name__ == "__main__":
    ids = torch.randint(0, 64, (2, 6))
    tags = torch.randint(0, 5, (2, 6))
    for net in (CheckpointedTagger(), NonReentrantTagger()):
        opt = torch.optim.SGD([p for p in net.parameters() if p.requires_grad], lr=0.1)
        train_step(net, ids, tags, opt)
    proj = ProjectedTagger()
    train_step(proj, torch.randn(2, 6, 8), tags, torch.optim.SGD(proj.parameters(), lr=0.1))
