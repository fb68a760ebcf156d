"""Sequence training where a helper unrolls a `nn.GRUCell` over the time steps of one
chunk and returns the final state; the outer loop over chunks passes the returned state
into the next chunk without detaching it, so the second chunk's backward raises "Trying to
backward through the graph a second time".

Source (rewritten in our own words, structure kept):
https://lightning.ai/docs/pytorch/stable/_sources/common/tbptt.rst.txt (split the
sequence into chunks, keep the hidden state between them, detach it: "Truncate") and
https://github.com/dpressel/dliss-tutorial/issues/1

Still missed: the loss is computed from `torch.stack(outputs)` of a list the helper builds
in its own loop; that the stacked list is never empty (stack raises otherwise) is not a
fact the analysis has, so the state is not certainly in the loss's history.
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
        outputs, h = unroll(cell, sequence[start:start + chunk_len], h)  # missed: GG201
        loss = (head(outputs) - targets[start:start + chunk_len]).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_sequence_fixed(cell, head, optimizer, sequence, targets, chunk_len=3):
    h = torch.zeros(sequence.size(1), cell.hidden_size)
    for start in range(0, sequence.size(0), chunk_len):
        outputs, h = unroll(cell, sequence[start:start + chunk_len], h.detach())
        loss = (head(outputs) - targets[start:start + chunk_len]).pow(2).mean()
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
