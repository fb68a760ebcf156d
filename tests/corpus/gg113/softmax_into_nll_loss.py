"""GG113: probabilities from a softmax given to nll_loss / NLLLoss, which expects
log-probabilities, in the spellings training code uses: inline, through a name, a keyword
`input=`, reshaped or cast on the way, a bare imported `softmax`, an `nn.Softmax` layer, the
last layer of an `nn.Sequential`, and a module whose `forward` ends with a softmax."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.functional import nll_loss, softmax


class Tagger(nn.Module):
    def __init__(self, vocab=30, hidden=16, tags=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True)
        self.proj = nn.Linear(hidden, tags)

    def forward(self, tokens):
        states, _ = self.lstm(self.embed(tokens))
        return F.softmax(self.proj(states), dim=-1)


def inline_functional(model, x, y):
    return F.nll_loss(F.softmax(model(x), dim=1), y)  # expect: GG113


def keyword_input(model, x, y):
    probs = torch.softmax(model(x), dim=1)
    return torch.nn.functional.nll_loss(input=probs, target=y)  # expect: GG113


def reshaped_per_token(tagger, tokens, tags):
    criterion = nn.NLLLoss(ignore_index=-1)
    probs = tagger(tokens).view(-1, 5)
    return criterion(probs, tags.view(-1))  # expect: GG113


def cast_method(model, x, y):
    scores = model(x).softmax(dim=1).float()
    return F.nll_loss(scores, y)  # expect: GG113


def bare_imports(model, x, y):
    return nll_loss(softmax(model(x), dim=1), y)  # expect: GG113


def layer_object(model, x, y):
    sm = nn.Softmax(dim=1)
    criterion = nn.NLLLoss()
    return criterion(sm(model(x)), y)  # expect: GG113


def train(model, batches):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.NLLLoss()
    for x, y in batches:
        optimizer.zero_grad()
        loss = criterion(model(x), y)  # expect: GG113
        loss.backward()
        optimizer.step()


linear = nn.Linear(8, 3)
xs, ys = torch.randn(4, 8), torch.randint(0, 3, (4,))
for loss in (
    inline_functional(linear, xs, ys),
    keyword_input(linear, xs, ys),
    cast_method(linear, xs, ys),
    bare_imports(linear, xs, ys),
    layer_object(linear, xs, ys),
):
    loss.backward()
tokens, tag_ids = torch.randint(0, 30, (2, 6)), torch.randint(0, 5, (2, 6))
reshaped_per_token(Tagger(), tokens, tag_ids).backward()
classifier = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3), nn.Softmax(dim=1))
train(classifier, [(xs, ys)])
