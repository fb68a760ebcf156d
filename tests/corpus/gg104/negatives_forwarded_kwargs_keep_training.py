"""Look-alikes of `frozen_through_forwarded_kwargs.py`: the same `**kwargs` forwarding into
a builder that freezes the whole tagger under an option, where what is forwarded keeps it
trainable. Every script runs (checked with torch 2.13.0); nothing here is a finding.

* `fine_tune(batches, freeze_encoder=False)`: the option is forwarded as False, so the
  builder never freezes anything.
* `fine_tune(batches, lr=0.005)`: the option is not passed at all; the merge over the
  defaults gives False.
* `fine_tune(batches, **overrides)` with `overrides = dict(LOW_LR, freeze_encoder=False)`:
  a dict built from another (`dict(a, key=...)`) and unpacked at the call; the later key
  wins over nothing, and the option is False.
* `probe(batches, **options)` forwards `freeze_encoder=True`, but trains a fresh head on the
  frozen tagger's output: the head's parameters give the loss its history.

Modelled on the freeze switch of an LLM example in PyTorch Geometric
(https://github.com/pyg-team/pytorch_geometric/pull/9996), written anew for this corpus.
"""

import torch
import torch.nn.functional as F
from torch import nn

TAGGER_DEFAULTS = {"vocab": 40, "hidden": 16, "tags": 5, "freeze_encoder": False, "lr": 0.01}
LOW_LR = {"lr": 0.001}


class Tagger(nn.Module):
    def __init__(self, vocab, hidden, tags):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.encoder = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, tags)

    def forward(self, tokens):
        states, _ = self.encoder(self.embed(tokens))
        return self.head(states)


def build_tagger(**options):
    settings = {**TAGGER_DEFAULTS, **options}
    tagger = Tagger(settings["vocab"], settings["hidden"], settings["tags"])
    if settings["freeze_encoder"]:
        tagger.requires_grad_(False)
    return tagger


def fine_tune(batches, **options):
    tagger = build_tagger(**options)
    optimizer = torch.optim.Adam(tagger.parameters(), lr=options.get("lr", 0.01))
    for tokens, tags in batches:
        logits = tagger(tokens)
        loss = F.cross_entropy(logits.flatten(0, 1), tags.flatten())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def probe(batches, **options):
    tagger = build_tagger(**options)
    head = nn.Linear(TAGGER_DEFAULTS["tags"], TAGGER_DEFAULTS["tags"])
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    for tokens, tags in batches:
        logits = head(tagger(tokens))
        loss = F.cross_entropy(logits.flatten(0, 1), tags.flatten())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    batches = [(torch.randint(0, 40, (4, 7)), torch.randint(0, 5, (4, 7))) for _ in range(3)]
    print("trained:", fine_tune(batches, freeze_encoder=False))
    print("defaults:", fine_tune(batches, lr=0.005))
    overrides = dict(LOW_LR, freeze_encoder=False)
    print("overrides:", fine_tune(batches, **overrides))
    print("probe:", probe(batches, freeze_encoder=True))


if __name__ == "__main__":
    main()
