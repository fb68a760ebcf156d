"""Sequence training where a helper unrolls a `nn.GRUCell` over the time steps of one
chunk and returns the final state; the outer loop over chunks passes the returned state
into the next chunk without detaching it, so the second chunk's backward raises "Trying to
backward through the graph a second time".

Source (rewritten in our own words, structure kept):
https://lightning.ai/docs/pytorch/stable/_sources/common/tbptt.rst.txt (split the
sequence into chunks, keep the hidden state between them, detach it: "Truncate") and
https://github.com/dpressel/dliss-tutorial/issues/1

Caught through a fact of the helper's summary: `unroll` rebinds its parameter `h` in its
own loop to a tensor with history built on it (`FunctionSummary.rebound`), so whatever
the call passes comes back unchanged (no time step) or with that history, and the batch
loop carries it into the next backward.
"""

import torch
from torch import nn


def unroll(cell, chunk, h):
    outputs = []
    for x_t in chunk:
        h = cell(x_t, h)
        outputs.append(h)
    return torch.stack(outputs), h


def train_sequence(cell, head, optimizer, sequence, targets, chunk_len=3):
    h = torch.zeros(sequence.size(1), cell.hidden_size)
    for start in range(0, sequence.size(0), chunk_len):
        outputs, h = unroll(cell, sequence[start : start + chunk_len], h)  # expect: GG201
        loss = (head(outputs) - targets[start : start + chunk_len]).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_sequence_fixed(cell, head, optimizer, sequence, targets, chunk_len=3):
    h = torch.zeros(sequence.size(1), cell.hidden_size)
    for start in range(0, sequence.size(0), chunk_len):
        outputs, h = unroll(cell, sequence[start : start + chunk_len], h.detach())
        loss = (head(outputs) - targets[start : start + chunk_len]).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    cell, head = nn.GRUCell(2, 4), nn.Linear(4, 1)
    opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
    seq, tgt = torch.randn(9, 2, 2), torch.randn(9, 2, 1)
    try:
        train_sequence(cell, head, opt, seq, tgt)
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the second-backward error")
    train_sequence_fixed(cell, head, opt, seq, tgt)
