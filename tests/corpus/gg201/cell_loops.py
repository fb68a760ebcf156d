"""nn.LSTMCell / nn.GRUCell / hand-written cells stepping with a backward per step (GG201)."""

import torch
import torch.nn.functional as F
from torch import nn

INPUT, HIDDEN, BATCH, STEPS = 5, 12, 3, 40

lstm_cell = nn.LSTMCell(INPUT, HIDDEN)
gru_cell = nn.GRUCell(INPUT, HIDDEN)
readout = nn.Linear(HIDDEN, 1)
opt = torch.optim.Adam(
    [*lstm_cell.parameters(), *gru_cell.parameters(), *readout.parameters()], lr=1e-3
)


def lstm_cell_online():
    xs = torch.randn(STEPS, BATCH, INPUT)
    ys = torch.randn(STEPS, BATCH, 1)
    h = torch.zeros(BATCH, HIDDEN)
    c = torch.zeros(BATCH, HIDDEN)
    for t in range(STEPS):
        h_next, c_next = lstm_cell(xs[t], (h, c))
        loss = F.mse_loss(readout(h_next), ys[t])
        opt.zero_grad()
        loss.backward()
        opt.step()
        h, c = h_next, c_next  # expect: GG201


def lstm_cell_rebinds_in_place():
    xs = torch.randn(STEPS, BATCH, INPUT)
    h = torch.zeros(BATCH, HIDDEN)
    c = torch.zeros(BATCH, HIDDEN)
    t = 0
    while t < STEPS:
        h, c = lstm_cell(xs[t], (h, c))  # expect: GG201
        loss = readout(h).abs().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        t += 1


def lstm_cell_state_tuple():
    xs = torch.randn(STEPS, BATCH, INPUT)
    state = (torch.zeros(BATCH, HIDDEN), torch.zeros(BATCH, HIDDEN))
    for x in xs:
        new_state = lstm_cell(x, state)
        loss = readout(new_state[0]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        state = new_state  # expect: GG201


def gru_cell_online():
    xs = torch.randn(STEPS, BATCH, INPUT)
    ys = torch.randn(STEPS, BATCH, 1)
    h = torch.zeros(BATCH, HIDDEN)
    for t in range(STEPS):
        h = gru_cell(xs[t], h)  # expect: GG201
        loss = F.mse_loss(readout(h), ys[t])
        opt.zero_grad()
        loss.backward()
        opt.step()


def hand_written_rnn(lr=0.05):
    """A vanilla RNN with raw parameters and a manual SGD step."""
    W = torch.randn(INPUT, HIDDEN, requires_grad=True)
    U = torch.randn(HIDDEN, HIDDEN, requires_grad=True)
    v = torch.randn(HIDDEN, 1, requires_grad=True)
    h = torch.zeros(BATCH, HIDDEN)
    for step in range(STEPS):
        x = torch.randn(BATCH, INPUT)
        target = torch.randn(BATCH, 1)
        h = torch.tanh(x @ W + h @ U)  # expect: GG201
        loss = ((h @ v - target) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for p in (W, U, v):
                p -= lr * p.grad
                p.grad = None


def hand_written_gate(lr=0.05):
    """The new state goes through an intermediate name before it is carried."""
    W = torch.randn(INPUT + HIDDEN, HIDDEN, requires_grad=True)
    h = torch.zeros(BATCH, HIDDEN)
    for step in range(STEPS):
        x = torch.randn(BATCH, INPUT)
        z = torch.sigmoid(torch.cat([x, h], dim=1) @ W)
        h_new = z * h + (1 - z) * torch.tanh(x.sum() + h)
        loss = h_new.pow(2).sum()
        loss.backward()
        with torch.no_grad():
            W -= lr * W.grad
        W.grad = None
        h = h_new  # expect: GG201
