"""A tagger frozen whole by an option forwarded through two `**kwargs` layers.

`fine_tune(batches, **options)` hands its keyword options on to `build_tagger(**options)`,
which merges them over the module's defaults (`{**TAGGER_DEFAULTS, **options}`). Asked for
`freeze_encoder=True`, the builder was meant to freeze the embedding and the recurrent
encoder only, but it calls `requires_grad_(False)` on the whole tagger: the head is frozen
too, nothing the training loop computes has history, and `loss.backward()` raises "element 0
of tensors does not require grad and does not have a grad_fn" (checked with torch 2.13.0).
The learning rate reaches the optimizer through `options.get("lr", ...)`.

The option is only known by following the keywords of the call in `main()` into the
`**options` dict of `fine_tune`, on into `build_tagger`'s, and through the dict merge. The
twin `negatives_forwarded_kwargs_keep_training.py` forwards the same way with the encoder
left trainable. Modelled on the freeze switch of an LLM example in PyTorch Geometric that
ended in this very error (https://github.com/pyg-team/pytorch_geometric/pull/9996),
written anew for this corpus.
"""

import torch
import torch.nn.functional as F
from torch import nn

TAGGER_DEFAULTS = {"vocab": 40, "hidden": 16, "tags": 5, "freeze_encoder": False, "lr": 0.01}


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
        tagger.requires_grad_(False)  # expect: GG104
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


def main():
    torch.manual_seed(0)
    batches = [(torch.randint(0, 40, (4, 7)), torch.randint(0, 5, (4, 7))) for _ in range(3)]
    try:
        fine_tune(batches, freeze_encoder=True, lr=0.005)
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("expected backward to fail")


if __name__ == "__main__":
    main()
