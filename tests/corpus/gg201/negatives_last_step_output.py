"""Look-alikes: the output of a sequence's last time step, read after the time-step loop.

A character-level RNN trained one sequence at a time: for each sequence the hidden state
starts from zeros, a time-step loop rebinds `output` on every step, and the loss is taken
from the last step's output after the loop. `output` is carried into the next sequence only
if a sequence were empty (the time-step loop would then run zero times); for any real
sequence every step rebinds it, so each backward runs through its own graph (checked with
torch 2.13.0). Silent, as the same loops whose `output` is bound before the loop.

The state that does cross sequences (`hidden` never reset) is still reported: every path
through the time-step loop carries it, whether the loop runs or not. Found while diagnosing
a blind corpus of char-RNN scripts (the classic "classifying names" training loop).
"""

import torch
from torch import nn


def train_last_step(sequences):
    cell = nn.RNNCell(4, 8)
    head = nn.Linear(8, 3)
    optimizer = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
    for seq, label in sequences:
        hidden = torch.zeros(1, 8)
        optimizer.zero_grad()
        for step in range(seq.size(0)):
            hidden = cell(seq[step], hidden)
            output = head(hidden)
        loss = nn.functional.cross_entropy(output, label)
        loss.backward()
        optimizer.step()


def train_last_step_in_a_while_loop(sequences):
    cell = nn.GRUCell(4, 8)
    head = nn.Linear(8, 3)
    optimizer = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
    for seq, label in sequences:
        hidden = torch.zeros(1, 8)
        optimizer.zero_grad()
        step = 0
        while step < seq.size(0):
            hidden = cell(seq[step], hidden)
            output = head(hidden)
            step += 1
        loss = nn.functional.cross_entropy(output, label)
        loss.backward()
        optimizer.step()


def train_state_never_reset(sequences):
    cell = nn.RNNCell(4, 8)
    head = nn.Linear(8, 3)
    optimizer = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
    hidden = torch.zeros(1, 8)
    for seq, label in sequences:
        optimizer.zero_grad()
        for step in range(seq.size(0)):
            hidden = cell(seq[step], hidden)  # expect: GG201
        loss = nn.functional.cross_entropy(head(hidden), label)
        loss.backward()
        optimizer.step()


def main():
    sequences = [(torch.randn(n, 1, 4), torch.tensor([n % 3])) for n in (5, 3, 4)]
    train_last_step(sequences)
    train_last_step_in_a_while_loop(sequences)
    try:
        train_state_never_reset(sequences)
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the second backward to fail")


if __name__ == "__main__":
    main()
