"""nn.RNN / nn.GRU / nn.LSTM state carried from batch to batch without detach (GG201)."""

import torch
import torch as T
from torch import nn

SEQ, BATCH, FEATURES, HIDDEN = 7, 4, 3, 16

rnn = nn.RNN(FEATURES, HIDDEN)
gru = T.nn.GRU(FEATURES, HIDDEN, num_layers=2)
lstm = nn.LSTM(FEATURES, HIDDEN, batch_first=True)
head = nn.Linear(HIDDEN, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(
    list(rnn.parameters()) + list(gru.parameters()) + list(head.parameters()), lr=0.01
)


def train_rnn(steps):
    """Seed 001, written as a function: the RNN output state feeds the next step."""
    h_cur = torch.zeros(1, BATCH, HIDDEN)
    for _ in range(steps):
        x = torch.randn(SEQ, BATCH, FEATURES)
        y = torch.randn(SEQ, BATCH, 1)
        optimizer.zero_grad()
        out, h_next = rnn(x, h_cur)
        loss = criterion(head(out), y)
        loss.backward()
        optimizer.step()
        h_cur = h_next  # expect: GG201


def train_gru_alias_import(steps):
    """`import torch as T` spelling; the state is read and rebound in one statement."""
    hidden = T.zeros(2, BATCH, HIDDEN)
    for step in range(steps):
        x = T.randn(SEQ, BATCH, FEATURES)
        out, hidden = gru(x, hidden)  # expect: GG201
        loss = out.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            print(step, loss.item())


def train_lstm_tuple(batches):
    """nn.LSTM returns `(h, c)`: both halves carry the graph of the previous batch."""
    h = torch.zeros(1, BATCH, HIDDEN)
    c = torch.zeros(1, BATCH, HIDDEN)
    for x, y in batches:
        output, (h, c) = lstm(x, (h, c))  # expect: GG201
        loss = criterion(head(output[:, -1]), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_lstm_packed_state(batches):
    """The state kept as one tuple named `state`."""
    state = None
    for x, y in batches:
        optimizer.zero_grad()
        output, state = lstm(x, state)  # expect: GG201
        loss = criterion(head(output[:, -1]), y)
        loss.backward()
        optimizer.step()


for epoch in range(3):
    hidden = torch.zeros(1, BATCH, HIDDEN)
    for i in range(20):
        inputs = torch.randn(SEQ, BATCH, FEATURES)
        targets = torch.randn(SEQ, BATCH, 1)
        optimizer.zero_grad()
        out, hidden = rnn(inputs, hidden)  # expect: GG201
        loss = criterion(head(out), targets)
        loss.backward()
        optimizer.step()
