"""Recurrent state carried across batches without a detach (GG201) in training functions
that receive the loss function (and the optimizer) as parameters: `loss =
criterion(output, target)` with a `criterion` nobody in the file passes. Whatever
`criterion` is, `loss.backward()` is called on its result, so it is the loss computed from
what it was given, and it depends on the state carried into `output`.

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorch/pytorch/issues/2769 - `train(train_data, model, criterion,
  optimizer, epoch)` with an LSTM classifier keeping `self.hidden` between batches.
* https://github.com/pytorch/examples/blob/main/word_language_model/main.py - `train()`
  uses a module-level `criterion` and calls `repackage_hidden(hidden)` before each batch;
  without it, "Trying to backward through the graph a second time".
* https://github.com/sgadgil6/cnslab_fmri/issues/4 - the fMRI LSTM trained by a function.

The look-alikes keep the parameters and cut the state: an imported `repackage_hidden`
(code the analysis cannot see counts as a possible detach), a detach in the loop, a state
created per batch, and evaluation under `torch.no_grad()`.
"""

import torch
from torch import nn

try:
    from utils import repackage_hidden  # a project helper in another file
except ImportError:

    def repackage_hidden(h):
        return tuple(v.detach() for v in h) if isinstance(h, tuple) else h.detach()


class WordLM(nn.Module):
    def __init__(self, ntoken: int = 10, nhid: int = 8) -> None:
        super().__init__()
        self.encoder = nn.Embedding(ntoken, nhid)
        self.rnn = nn.LSTM(nhid, nhid)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, data, hidden):
        output, hidden = self.rnn(self.encoder(data), hidden)
        return self.decoder(output), hidden


class TaggerLSTM(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(4, 8, batch_first=True)
        self.hidden2class = nn.Linear(8, 3)
        self.hidden = (torch.zeros(1, 1, 8), torch.zeros(1, 1, 8))

    def forward(self, x):
        lstm_out, self.hidden = self.lstm(x, self.hidden)  # expect: GG201
        return self.hidden2class(lstm_out[:, -1, :])


def train_lm(batches, criterion, lr):
    model = WordLM()
    hidden = (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))
    for data, targets in batches:
        model.zero_grad()
        output, hidden = model(data, hidden)  # expect: GG201
        loss = criterion(output.view(-1, 10), targets)
        loss.backward()
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)


def train_tagger(train_data, criterion):
    model = TaggerLSTM()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for inputs, target in train_data:
        output = model(inputs)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_lm_repackaged(batches, criterion, lr):
    model = WordLM()
    hidden = (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))
    for data, targets in batches:
        hidden = repackage_hidden(hidden)
        model.zero_grad()
        output, hidden = model(data, hidden)
        loss = criterion(output.view(-1, 10), targets)
        loss.backward()
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)


def train_lm_detached(batches, criterion, optimizer_factory):
    model = WordLM()
    optimizer = optimizer_factory(model.parameters())
    hidden = (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))
    for data, targets in batches:
        hidden = tuple(h.detach() for h in hidden)
        output, hidden = model(data, hidden)
        loss = criterion(output.view(-1, 10), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_lm_fresh_state(batches, criterion, lr):
    model = WordLM()
    for data, targets in batches:
        hidden = (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))
        model.zero_grad()
        output, hidden = model(data, hidden)
        loss = criterion(output.view(-1, 10), targets)
        loss.backward()
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)


def evaluate_lm(batches, criterion):
    model = WordLM()
    model.eval()
    total = 0.0
    hidden = (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))
    with torch.no_grad():
        for data, targets in batches:
            output, hidden = model(data, hidden)
            total += criterion(output.view(-1, 10), targets).item()
    return total


if __name__ == "__main__":
    lm_batches = [(torch.randint(0, 10, (5, 2)), torch.randint(0, 10, (10,)))] * 3
    tag_batches = [(torch.randn(1, 5, 4), torch.tensor([1]))] * 3
    ce = nn.CrossEntropyLoss()
    for run in (lambda: train_lm(lm_batches, ce, 0.1), lambda: train_tagger(tag_batches, ce)):
        try:
            run()
        except RuntimeError as error:
            assert "backward through the graph a second time" in str(error)
        else:
            raise AssertionError("expected the second-backward error")
    train_lm_repackaged(lm_batches, ce, 0.1)
    train_lm_detached(lm_batches, ce, lambda p: torch.optim.SGD(p, lr=0.1))
    train_lm_fresh_state(lm_batches, ce, 0.1)
    evaluate_lm(lm_batches, ce)
