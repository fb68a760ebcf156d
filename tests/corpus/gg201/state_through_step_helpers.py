"""A per-batch step helper that takes the recurrent state and returns the new one.

Common in char-RNN and time-series scripts (and in "Trying to backward through the graph a
second time" questions on discuss.pytorch.org): `hidden = train_step(x, y, hidden)` in the
loop, the backward inside the helper. The state the helper returns still points into the
graph its backward freed.
"""

import torch
from torch import nn

lstm = nn.LSTM(5, 10)
readout = nn.Linear(10, 1)
optimizer = torch.optim.Adam([*lstm.parameters(), *readout.parameters()])


def train_step(x, y, state):
    out, state = lstm(x, state)
    loss = (readout(out) - y).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return state


def train_step_detaching(x, y, state):
    if state is not None:
        state = tuple(s.detach() for s in state)
    out, state = lstm(x, state)
    loss = (readout(out) - y).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return state


def train_step_fresh(x, y, state):
    out, new_state = lstm(x)
    loss = (readout(out) - y).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return new_state


def carried(batches):
    state = None
    for x, y in batches:
        state = train_step(x, y, state)  # expect: GG201


def carried_but_detached_inside(batches):
    state = None
    for x, y in batches:
        state = train_step_detaching(x, y, state)


def state_not_fed_back(batches):
    state = None
    for x, y in batches:
        state = train_step_fresh(x, y, state)


def detached_by_the_caller(batches):
    state = None
    for x, y in batches:
        state = train_step(x, y, state)
        state = tuple(s.detach() for s in state)
