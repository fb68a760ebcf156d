"""A model built from a module-level settings dict, frozen whole by a helper before training.

`SETTINGS` is a dict of numbers bound once and never changed, so `Encoder(c["vocab"],
c["dim"])` is built from plain numbers: the encoder owns every parameter it computes with,
and so does the classifier that registers it. `freeze_backbone(model)` was meant to freeze
the encoder only but calls `requires_grad_(False)` on the whole model, so nothing the
training loop computes has history and `loss.backward()` raises "element 0 of tensors does
not require grad and does not have a grad_fn" (checked with torch 2.13.0). The settings dict
reaches the trainer too (stored on `self`, read by key), which changes nothing.

The twin `negatives_settings_dict_changed.py` puts a tensor into its settings dict: there
the dict is not known and the rule stays silent. Modelled on a blind-corpus case (a
fine-tuning helper freezing the whole wrapper model; the pattern of
https://runebook.dev/en/docs/pytorch/generated/torch.nn.module/torch.nn.Module.requires_grad_),
written anew for this corpus.
"""

import torch
from torch import nn

SETTINGS = {"vocab": 20, "dim": 8, "classes": 2, "lr": 0.1, "epochs": 2, "betas": (0.9, 0.99)}


class Encoder(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.mix = nn.Linear(dim, dim)

    def forward(self, tokens):
        return torch.tanh(self.mix(self.embed(tokens))).mean(dim=1)


class Classifier(nn.Module):
    def __init__(self, encoder, dim, classes):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens):
        return self.head(self.encoder(tokens))


def freeze_backbone(model):
    model.requires_grad_(False)  # expect: GG104


class Trainer:
    def __init__(self, model, cfg):
        self.model, self.cfg = model, cfg
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"], betas=cfg["betas"])

    def fit(self, batches):
        for _ in range(self.cfg["epochs"]):
            for tokens, labels in batches:
                self.optimizer.zero_grad()
                loss = nn.functional.cross_entropy(self.model(tokens), labels)
                loss.backward()
                self.optimizer.step()


def main():
    c = SETTINGS
    encoder = Encoder(c["vocab"], c["dim"])
    model = Classifier(encoder, c["dim"], c["classes"])
    freeze_backbone(model)
    batches = [(torch.randint(0, c["vocab"], (4, 5)), torch.randint(0, 2, (4,)))]
    try:
        Trainer(model, c).fit(batches)
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("expected backward to fail")


if __name__ == "__main__":
    main()
