"""Freezes done inside helper functions, seen from the code that calls them.

`score()` switches the whole model off with `requires_grad_(False)` "to save memory" and
never switches it back; `main()` scores the untrained model once for a baseline, so the
training run that follows finds no parameter requiring grad and `loss.backward()` raises
"element 0 of tensors does not require grad and does not have a grad_fn" (checked with
torch 2.13.0). The model is a wrapper registering an encoder built just before and handed
in whole, so every parameter it computes with is one `requires_grad_(False)` reaches.

Silent: a helper freezing only the encoder (the head still trains), a helper freezing under
a flag (not on every way out), a helper that rebinds its parameter before freezing (the
freeze reaches another module), and a wrapper whose encoder is also used elsewhere. Found by
a blind corpus a helper wrote for the team (an evaluation helper that freezes the model,
modelled on the forum reports of `requires_grad_(False)` left on after validation).
"""

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return torch.tanh(self.proj(x))


class Classifier(nn.Module):
    def __init__(self, encoder, classes):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(4, classes)

    def forward(self, x):
        return self.head(self.encoder(x))


def score(model, batches):
    model.eval()
    model.requires_grad_(False)  # expect: GG104
    hits = 0
    for x, y in batches:
        hits += (model(x).argmax(-1) == y).sum().item()
    return hits


def score_encoder_frozen(model, batches):
    model.encoder.requires_grad_(False)
    return sum((model(x).argmax(-1) == y).sum().item() for x, y in batches)


def score_maybe_frozen(model, batches, frozen):
    if frozen:
        model.requires_grad_(False)
    return sum((model(x).argmax(-1) == y).sum().item() for x, y in batches)


def score_inner(model, batches):
    model = model.encoder
    model.requires_grad_(False)
    return len(batches)


def fit(model, batches):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in batches:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def fit_head(model, batches):
    optimizer = torch.optim.SGD(model.head.parameters(), lr=0.1)
    for x, y in batches:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def fit_flagged(model, batches):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in batches:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def fit_inner(model, batches):
    optimizer = torch.optim.SGD(model.head.parameters(), lr=0.1)
    for x, y in batches:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def fit_shared(model, batches):
    optimizer = torch.optim.SGD(model.head.parameters(), lr=0.1)
    for x, y in batches:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def main():
    batches = [(torch.randn(6, 4), torch.randint(0, 3, (6,))) for _ in range(2)]

    encoder = Encoder(4)
    model = Classifier(encoder, 3)
    print("baseline hits:", score(model, batches))
    try:
        fit(model, batches)
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("expected backward to fail")

    partly = Classifier(Encoder(4), 3)
    print("hits:", score_encoder_frozen(partly, batches))
    fit_head(partly, batches)

    flagged = Classifier(Encoder(4), 3)
    print("hits:", score_maybe_frozen(flagged, batches, False))
    fit_flagged(flagged, batches)

    inner = Classifier(Encoder(4), 3)
    print("batches:", score_inner(inner, batches))
    fit_inner(inner, batches)

    shared_encoder = Encoder(4)
    shared = Classifier(shared_encoder, 3)
    shared_encoder.requires_grad_(False)
    fit_shared(shared, batches)


if __name__ == "__main__":
    main()
