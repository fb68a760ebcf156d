"""Carried recurrent state that IS detached between backward calls: no GG201 anywhere."""

import torch
from torch import nn

lstm = nn.LSTM(3, 8)
gru = nn.GRU(3, 8)
cell = nn.LSTMCell(3, 8)
head = nn.Linear(8, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD([*lstm.parameters(), *gru.parameters(), *head.parameters()], lr=0.1)


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


def detach_with_helper(steps):
    hidden = (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))
    for _ in range(steps):
        hidden = repackage_hidden(hidden)
        out, hidden = lstm(torch.randn(5, 2, 3), hidden)
        loss = criterion(head(out), torch.randn(5, 2, 1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def detach_after_step(steps):
    hidden = torch.zeros(1, 2, 8)
    for _ in range(steps):
        out, hidden = gru(torch.randn(5, 2, 3), hidden)
        loss = out.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        hidden = hidden.detach()


def detach_when_passed(steps):
    hidden = torch.zeros(1, 2, 8)
    for _ in range(steps):
        out, hidden = gru(torch.randn(5, 2, 3), hidden.detach())
        loss = out.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def detach_tuple_inline(steps):
    h, c = torch.zeros(1, 2, 8), torch.zeros(1, 2, 8)
    for _ in range(steps):
        out, (h, c) = lstm(torch.randn(5, 2, 3), (h, c))
        loss = out.abs().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        h, c = h.detach(), c.detach()


def detach_tuple_generator(steps):
    state = None
    for _ in range(steps):
        out, state = lstm(torch.randn(5, 2, 3), state)
        state = tuple(s.detach() for s in state)
        loss = out.abs().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def detach_cell_state(steps):
    h = torch.zeros(2, 8)
    c = torch.zeros(2, 8)
    for _ in range(steps):
        h_next, c_next = cell(torch.randn(2, 3), (h, c))
        loss = head(h_next).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        h, c = h_next.detach(), c_next.detach()


def detach_in_place(steps, lr=0.1):
    W = torch.randn(3, 8, requires_grad=True)
    U = torch.randn(8, 8, requires_grad=True)
    h = torch.zeros(2, 8)
    for _ in range(steps):
        h = torch.tanh(torch.randn(2, 3) @ W + h @ U)
        loss = h.pow(2).mean()
        loss.backward()
        with torch.no_grad():
            W -= lr * W.grad
            U -= lr * U.grad
        W.grad = None
        U.grad = None
        h.detach_()


def detach_through_data(steps):
    h = torch.zeros(2, 8)
    for _ in range(steps):
        h = cell(torch.randn(2, 3), (h, torch.zeros(2, 8)))[0]
        loss = head(h).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        h = h.data


class StatefulGRU(nn.Module):
    """Keeps its state between calls, and offers a method that cuts its history."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(3, 8, batch_first=True)
        self.hidden = None

    def forward(self, x):
        out, self.hidden = self.gru(x, self.hidden)
        return out[:, -1].sum()

    def detach_state(self):
        if self.hidden is not None:
            self.hidden = self.hidden.detach()


stateful = StatefulGRU()
stateful_opt = torch.optim.SGD(stateful.parameters(), lr=0.1)
for step in range(20):
    stateful_opt.zero_grad()
    objective = stateful(torch.randn(2, 4, 3))
    objective.backward()
    stateful_opt.step()
    stateful.detach_state()
