"""A char-RNN whose `train(model, batches, optimizer, criterion)` keeps the hidden state from
one batch to the next: the shape of the classic "Trying to backward through the graph a
second time" report on discuss.pytorch.org and in char-rnn tutorials (the hidden state comes
from `model.init_hidden(...)`, the model and the loss arrive as parameters from `main()`).
The fixed function detaches the state at the top of each batch.
"""

import torch
from torch import nn


class CharRNN(nn.Module):
    def __init__(self, vocab=20, hidden=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x, h):
        y, h = self.rnn(self.embed(x), h)
        return self.out(y), h

    def init_hidden(self, batch):
        return torch.zeros(1, batch, 32)


def train(model, batches, optimizer, criterion):
    hidden = model.init_hidden(4)
    for x, y in batches:
        optimizer.zero_grad()
        logits, hidden = model(x, hidden)  # expect: GG201
        loss = criterion(logits.reshape(-1, 20), y.reshape(-1))
        loss.backward()
        optimizer.step()


def train_detached(model, batches, optimizer, criterion):
    hidden = model.init_hidden(4)
    for x, y in batches:
        hidden = hidden.detach()
        optimizer.zero_grad()
        logits, hidden = model(x, hidden)
        loss = criterion(logits.reshape(-1, 20), y.reshape(-1))
        loss.backward()
        optimizer.step()


def train_fresh_state(model, batches, optimizer, criterion):
    for x, y in batches:
        hidden = model.init_hidden(4)
        optimizer.zero_grad()
        logits, hidden = model(x, hidden)
        loss = criterion(logits.reshape(-1, 20), y.reshape(-1))
        loss.backward()
        optimizer.step()


def main():
    model = CharRNN()
    optimizer = torch.optim.Adam(model.parameters())
    criterion = nn.CrossEntropyLoss()
    batches = [(torch.randint(0, 20, (4, 5)), torch.randint(0, 20, (4, 5)))]
    train(model, batches, optimizer, criterion)
    train_detached(model, batches, optimizer, criterion)
    train_fresh_state(model, batches, optimizer, criterion)


main()
