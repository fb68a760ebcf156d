"""Hidden state detached in place behind a None guard: no GG201.

Modelled on the one GG201 finding the team saw in 1.7 M lines of real training code, a
word-language-model style loop where the state starts as None and each element of the
(h, c) tuple is cut with `detach_()` once it exists (pattern seen in several public LSTM
training scripts, e.g. https://github.com/pytorch/examples/tree/main/word_language_model
uses the out-of-place form). The look-alike positives at the end keep the same shape but
never cut the state.
"""

import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(6, 10)
        self.out = nn.Linear(10, 3)

    def forward(self, x, state):
        y, state = self.rnn(x, state)
        return self.out(y), state


model = Tagger()
optimizer = torch.optim.Adam(model.parameters())


def elementwise_detach_in_place(batches):
    state = None
    for x in batches:
        if state is not None:
            for tensor in state:
                tensor.detach_()
        scores, state = model(x, state)
        optimizer.zero_grad()
        scores.sum().backward()
        optimizer.step()


def single_state_detach_in_place(batches):
    gru = nn.GRU(6, 10)
    hidden = None
    for x in batches:
        if hidden is not None:
            hidden.detach_()
        y, hidden = gru(x, hidden)
        y.mean().backward()


def none_check_first(batches):
    gru = nn.GRU(6, 10)
    hidden = None
    for x in batches:
        if hidden is None:
            pass
        else:
            hidden = hidden.detach()
        y, hidden = gru(x, hidden)
        y.mean().backward()


def guarded_but_never_cut(batches):
    gru = nn.GRU(6, 10)
    hidden = None
    for x in batches:
        if hidden is not None:
            print(hidden.shape)
        y, hidden = gru(x, hidden)  # expect: GG201
        y.mean().backward()


def cut_only_when_none(batches):
    gru = nn.GRU(6, 10)
    hidden = torch.zeros(1, 4, 10)
    for x in batches:
        if hidden is None:
            hidden.detach_()
        y, hidden = gru(x, hidden)  # expect: GG201
        y.mean().backward()
