"""A captioning model's decoder returns `.data` of its logits; the model returns a loss dict.

The wrapper's `forward` computes `{"caption": self.criterion(logits, targets)}` from the
decoder's logits and the captions it is given. Its summary cannot tell what the targets
are (soft targets could carry history), but the training loop passes integer token ids:
run with those arguments, the loss has no history, cut by `.data` in the decoder, and
`sum(losses.values()).backward()` raises "element 0 of tensors does not require grad"
(checked with torch 2.13.0 below). The look-alike keeps the decoder's graph.

Modelled on a recipe-generation model whose decoder detached its stacked logits
(https://github.com/facebookresearch/inversecooking/issues/3, via the team's blind corpus).
"""

import torch
from torch import nn


class Decoder(nn.Module):
    def __init__(self, vocab=12, hidden=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.cell = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, features, captions):
        h = features
        steps = []
        for t in range(captions.size(1) - 1):
            h = self.cell(self.embed(captions[:, t]), h)
            steps.append(self.out(h))
        return torch.stack(steps, 1).data  # expect: GG103


class KeptDecoder(Decoder):
    def forward(self, features, captions):
        h = features
        steps = []
        for t in range(captions.size(1) - 1):
            h = self.cell(self.embed(captions[:, t]), h)
            steps.append(self.out(h))
        return torch.stack(steps, 1)


class Captioner(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(5, 8)
        self.decoder = Decoder()
        self.criterion = nn.CrossEntropyLoss()

    def forward(self, images, captions):
        logits = self.decoder(self.encoder(images), captions)
        targets = captions[:, 1:].reshape(-1)
        return {"caption": self.criterion(logits.reshape(-1, logits.size(-1)), targets)}


class KeptCaptioner(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(5, 8)
        self.decoder = KeptDecoder()
        self.criterion = nn.CrossEntropyLoss()

    def forward(self, images, captions):
        logits = self.decoder(self.encoder(images), captions)
        targets = captions[:, 1:].reshape(-1)
        return {"caption": self.criterion(logits.reshape(-1, logits.size(-1)), targets)}


def train(steps=2):
    model = Captioner()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(steps):
        images = torch.randn(4, 5)
        captions = torch.randint(0, 12, (4, 6))
        losses = model(images, captions)
        loss = sum(losses.values())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_kept(steps=2):
    model = KeptCaptioner()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(steps):
        images = torch.randn(4, 5)
        captions = torch.randint(0, 12, (4, 6))
        losses = model(images, captions)
        loss = sum(losses.values())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    try:
        train()
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("expected the cut loss to fail")
    train_kept()
