"""Binary cross-entropy given the wrong kind of input.

Modelled on two recurring questions (discuss.pytorch.org and Stack Overflow): "RuntimeError:
all elements of input should be between 0 and 1" from `nn.BCELoss` fed a linear layer's
output, and "my binary classifier with BCEWithLogitsLoss trains very slowly" where the
model already ends with `nn.Sigmoid` (the `BCEWithLogitsLoss` documentation says it
combines a Sigmoid layer and the BCELoss). Written in this project's own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class SpamClassifier(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab, 32)
        self.out = nn.Linear(32, 1)

    def forward(self, tokens, offsets):
        return self.out(self.embed(tokens, offsets))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Linear(784, 256),
            nn.LeakyReLU(0.2),
            nn.Linear(256, 1),
            nn.Sigmoid(),
        )

    def forward(self, image):
        return self.main(image.view(image.size(0), -1))


def train_spam(loader, vocab):
    model = SpamClassifier(vocab)
    criterion = nn.BCELoss()
    optimizer = torch.optim.Adam(model.parameters())
    for tokens, offsets, label in loader:
        optimizer.zero_grad()
        output = model(tokens, offsets).squeeze(1)
        loss = criterion(output, label.float())  # expect: GG111
        loss.backward()
        optimizer.step()


def train_gan_discriminator(loader):
    D = Discriminator()
    adversarial = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.Adam(D.parameters(), lr=2e-4)
    for real, _ in loader:
        optimizer.zero_grad()
        verdict = D(real)
        loss = adversarial(verdict, torch.ones_like(verdict))  # expect: GG111
        loss.backward()
        optimizer.step()


def train_multilabel(features, targets):
    head = nn.Linear(64, 12)
    scores = torch.sigmoid(head(features))
    loss = F.binary_cross_entropy_with_logits(scores, targets)  # expect: GG111
    loss.backward()
    return scores > 0.5


def train_probe(features, targets):
    probe = nn.Linear(64, 1)
    loss = F.binary_cross_entropy(probe(features).view(-1), targets)  # expect: GG111
    loss.backward()
