"""State re-created per batch, or carried only inside one unrolled sequence: no GG201."""

import torch
from torch import nn

SEQ, BATCH, FEATURES, HIDDEN = 6, 3, 4, 10

rnn = nn.RNN(FEATURES, HIDDEN)
lstm = nn.LSTM(FEATURES, HIDDEN)
cell = nn.GRUCell(FEATURES, HIDDEN)
head = nn.Linear(HIDDEN, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.Adam([*rnn.parameters(), *cell.parameters(), *head.parameters()])


def fresh_state_every_batch(batches):
    for x, y in batches:
        hidden = torch.zeros(1, BATCH, HIDDEN)
        out, hidden = rnn(x, hidden)
        loss = criterion(head(out), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def fresh_lstm_state_every_batch(steps):
    for _ in range(steps):
        h = torch.zeros(1, BATCH, HIDDEN)
        c = torch.zeros(1, BATCH, HIDDEN)
        out, (h, c) = lstm(torch.randn(SEQ, BATCH, FEATURES), (h, c))
        loss = out.pow(2).mean() + h.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def default_zero_state(steps):
    for _ in range(steps):
        out, hidden = rnn(torch.randn(SEQ, BATCH, FEATURES))
        loss = head(hidden[-1]).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def sequence_loss(xs, ys):
    """Full BPTT over one sequence: the state is carried, the backward comes later."""
    h = torch.zeros(BATCH, HIDDEN)
    loss = torch.zeros(())
    for t in range(SEQ):
        h = cell(xs[t], h)
        loss = loss + criterion(head(h), ys[t])
    return loss / SEQ


def full_bptt(epochs):
    xs = torch.randn(SEQ, BATCH, FEATURES)
    ys = torch.randn(SEQ, BATCH, 1)
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = sequence_loss(xs, ys)
        loss.backward()
        optimizer.step()


for epoch in range(5):
    # One unrolled sequence per epoch: the time loop carries `h`, and `backward` runs once,
    # after the time loop, on a state that is re-created at the top of every epoch.
    h = torch.zeros(BATCH, HIDDEN)
    outputs = []
    xs = torch.randn(SEQ, BATCH, FEATURES)
    for t in range(SEQ):
        h = cell(xs[t], h)
        outputs.append(head(h))
    loss = torch.stack(outputs).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def tbptt_every_k_steps(k=3):
    """Truncated BPTT: accumulate k steps, backward, then detach in the same branch."""
    xs = torch.randn(4 * k, BATCH, FEATURES)
    h = torch.zeros(BATCH, HIDDEN)
    loss = torch.zeros(())
    for t in range(xs.size(0)):
        h = cell(xs[t], h)
        loss = loss + head(h).pow(2).mean()
        if (t + 1) % k == 0:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            h = h.detach()
            loss = torch.zeros(())
