"""Recurrent state carried from batch to batch THROUGH a loop over time steps (GG201): the
time-step loop sits in `forward`, in a helper, or straight inside the batch loop, and the
state it leaves is fed into the next batch without a detach. The first batch's backward
frees the graph the state still points into, so the second batch raises "Trying to
backward through the graph a second time".

The time-step loop may run zero times (its length is the data's), so after it the state is
either unchanged or a tensor with history built on it; once it has history it keeps it until
it is detached, so the next backward through it fails either way.

Sources (rewritten in our own words, structure kept):
* https://forums.fast.ai/t/rnn-hidden-state-initializations-chapter-12/91887 - the fastbook
  language model keeps `self.h` on the module, loops over the sequence in `forward`, and
  detaches `self.h` after the loop (chapter 12 explains that without the detach the second
  batch backpropagates into the first one's freed graph); `reset()` zeroes it per epoch.
* https://github.com/dpressel/dliss-tutorial/issues/1 and
  https://lightning.ai/docs/pytorch/stable/_sources/common/tbptt.rst.txt - chunks of a long
  sequence, the state kept between chunks and detached ("truncated BPTT").
* https://github.com/tensorflow/tensorflow/issues/107 - an inner loop over the time steps of
  a block, inside the loop over blocks, with the last state feeding the next block.

Every buggy function below raises the error under torch 2.13.0 (see `__main__`); every
fixed look-alike runs.
"""

import torch
import torch.nn.functional as F
from torch import nn


def repackage_hidden(h):
    """word_language_model's helper: cut the history of a state (or a tuple of them)."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


# ---- the state on the module, rebound in forward's loop over the sequence ---------------


class CharLM(nn.Module):
    """fastbook chapter 12's model without the detach after the loop."""

    def __init__(self, vocab_sz: int = 10, n_hidden: int = 8) -> None:
        super().__init__()
        self.i_h = nn.Embedding(vocab_sz, n_hidden)
        self.h_h = nn.Linear(n_hidden, n_hidden)
        self.h_o = nn.Linear(n_hidden, vocab_sz)
        self.h = 0

    def forward(self, x):
        outs = []
        for i in range(x.size(1)):
            self.h = self.h + self.i_h(x[:, i])
            self.h = F.relu(self.h_h(self.h))  # expect: GG201
            outs.append(self.h_o(self.h))
        return torch.stack(outs, dim=1)

    def reset(self):
        self.h = 0


class CharLMDetached(nn.Module):
    """The book's model: the state is detached once the sequence is done."""

    def __init__(self, vocab_sz: int = 10, n_hidden: int = 8) -> None:
        super().__init__()
        self.i_h = nn.Embedding(vocab_sz, n_hidden)
        self.h_h = nn.Linear(n_hidden, n_hidden)
        self.h_o = nn.Linear(n_hidden, vocab_sz)
        self.h = 0

    def forward(self, x):
        outs = []
        for i in range(x.size(1)):
            self.h = self.h + self.i_h(x[:, i])
            self.h = F.relu(self.h_h(self.h))
            outs.append(self.h_o(self.h))
        self.h = self.h.detach()
        return torch.stack(outs, dim=1)

    def reset(self):
        self.h = 0


class CharLMFresh(nn.Module):
    """Starts every sequence from zeros inside forward: nothing crosses batches."""

    def __init__(self, vocab_sz: int = 10, n_hidden: int = 8) -> None:
        super().__init__()
        self.i_h = nn.Embedding(vocab_sz, n_hidden)
        self.h_h = nn.Linear(n_hidden, n_hidden)
        self.h_o = nn.Linear(n_hidden, vocab_sz)
        self.h = 0

    def forward(self, x):
        self.h = torch.zeros(x.size(0), self.h_h.in_features)
        outs = []
        for i in range(x.size(1)):
            self.h = F.relu(self.h_h(self.h + self.i_h(x[:, i])))
            outs.append(self.h_o(self.h))
        return torch.stack(outs, dim=1)


def fit_char_lm(batches):
    model = CharLM()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model.reset()
    for xb, yb in batches:
        loss = F.cross_entropy(model(xb).view(-1, 10), yb.view(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()


def fit_char_lm_detached(batches):
    model = CharLMDetached()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model.reset()
    for xb, yb in batches:
        loss = F.cross_entropy(model(xb).view(-1, 10), yb.view(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()


def fit_char_lm_reset_per_batch(batches):
    model = CharLM()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for xb, yb in batches:
        model.reset()
        loss = F.cross_entropy(model(xb).view(-1, 10), yb.view(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()


def fit_char_lm_fresh(batches):
    model = CharLMFresh()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for xb, yb in batches:
        loss = F.cross_entropy(model(xb).view(-1, 10), yb.view(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()


def sample_char_lm(batches):
    model = CharLM()
    model.eval()
    picks = []
    with torch.no_grad():
        for xb, _ in batches:
            picks.append(model(xb).argmax(-1))
    return picks


# ---- the state returned by forward, which loops over the chunk's time steps -------------


class ChunkGRU(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cell = nn.GRUCell(2, 4)
        self.head = nn.Linear(4, 1)

    def forward(self, chunk, h):
        outs = []
        for x_t in chunk:
            h = self.cell(x_t, h)
            outs.append(self.head(h))
        return torch.stack(outs), h


def fit_chunks(seq, tgt, chunk_len=3):
    model = ChunkGRU()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    h = torch.zeros(seq.size(1), 4)
    for start in range(0, seq.size(0), chunk_len):
        out, h = model(seq[start : start + chunk_len], h)  # expect: GG201
        loss = (out - tgt[start : start + chunk_len]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def fit_chunks_repackaged(seq, tgt, chunk_len=3):
    model = ChunkGRU()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    h = torch.zeros(seq.size(1), 4)
    for start in range(0, seq.size(0), chunk_len):
        h = repackage_hidden(h)
        out, h = model(seq[start : start + chunk_len], h)
        loss = (out - tgt[start : start + chunk_len]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def fit_chunks_detached_in_place(seq, tgt, chunk_len=3):
    model = ChunkGRU()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    h = None
    for start in range(0, seq.size(0), chunk_len):
        if h is not None:
            h.detach_()
        else:
            h = torch.zeros(seq.size(1), 4)
        out, h = model(seq[start : start + chunk_len], h)
        loss = (out - tgt[start : start + chunk_len]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def rollout_chunks(seq, chunk_len=3):
    model = ChunkGRU()
    h = torch.zeros(seq.size(1), 4)
    outs = []
    with torch.no_grad():
        for start in range(0, seq.size(0), chunk_len):
            out, h = model(seq[start : start + chunk_len], h)
            outs.append(out)
    return outs


# ---- the time-step loop straight inside the batch loop ----------------------------------


def fit_nested(seq, tgt, chunk_len=3):
    cell, head = nn.GRUCell(2, 4), nn.Linear(4, 1)
    opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
    h = torch.zeros(seq.size(1), 4)
    for start in range(0, seq.size(0), chunk_len):
        for x_t in seq[start : start + chunk_len]:
            h = cell(x_t, h)  # expect: GG201
        loss = (head(h) - tgt[start]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def fit_nested_while(seq, tgt, chunk_len=3):
    cell, head = nn.GRUCell(2, 4), nn.Linear(4, 1)
    opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
    h = torch.zeros(seq.size(1), 4)
    start = 0
    while start < seq.size(0):
        t = start
        while t < start + chunk_len:
            h = cell(seq[t], h)  # expect: GG201
            t += 1
        loss = (head(h) - tgt[start]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        start += chunk_len


def fit_hand_written_cell(seq, epochs=3):
    W = torch.randn(2, 4, requires_grad=True)
    U = torch.randn(4, 4, requires_grad=True)
    opt = torch.optim.SGD([W, U], lr=0.1)
    h = torch.zeros(seq.size(1), 4)
    for epoch in range(epochs):
        for x_t in seq:
            h = torch.tanh(x_t @ W + h @ U)  # expect: GG201
        loss = h.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def fit_nested_truncated(seq, tgt, chunk_len=3):
    cell, head = nn.GRUCell(2, 4), nn.Linear(4, 1)
    opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
    h = torch.zeros(seq.size(1), 4)
    for start in range(0, seq.size(0), chunk_len):
        h = h.detach()
        for x_t in seq[start : start + chunk_len]:
            h = cell(x_t, h)
        loss = (head(h) - tgt[start]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def fit_nested_fresh(seq, tgt, chunk_len=3):
    cell, head = nn.GRUCell(2, 4), nn.Linear(4, 1)
    opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
    for start in range(0, seq.size(0), chunk_len):
        h = torch.zeros(seq.size(1), 4)
        for x_t in seq[start : start + chunk_len]:
            h = cell(x_t, h)
        loss = (head(h) - tgt[start]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def sample_nested(seq, chunk_len=3):
    cell, head = nn.GRUCell(2, 4), nn.Linear(4, 1)
    h = torch.zeros(seq.size(1), 4)
    samples = []
    with torch.no_grad():
        for start in range(0, seq.size(0), chunk_len):
            for x_t in seq[start : start + chunk_len]:
                h = cell(x_t, h)
            samples.append(head(h))
    return samples


if __name__ == "__main__":
    tokens = [(torch.randint(0, 10, (2, 3)), torch.randint(0, 10, (2, 3)))] * 3
    seq, tgt = torch.randn(9, 2, 2), torch.randn(9, 2, 1)
    buggy = [
        lambda: fit_char_lm(tokens),
        lambda: fit_chunks(seq, tgt),
        lambda: fit_nested(seq, tgt),
        lambda: fit_nested_while(seq, tgt),
        lambda: fit_hand_written_cell(seq),
    ]
    for run in buggy:
        try:
            run()
        except RuntimeError as error:
            assert "backward through the graph a second time" in str(error)
        else:
            raise AssertionError("expected the second-backward error")
    fit_char_lm_detached(tokens)
    fit_char_lm_reset_per_batch(tokens)
    fit_char_lm_fresh(tokens)
    sample_char_lm(tokens)
    fit_chunks_repackaged(seq, tgt)
    fit_chunks_detached_in_place(seq, tgt)
    rollout_chunks(seq)
    fit_nested_truncated(seq, tgt)
    fit_nested_fresh(seq, tgt)
    sample_nested(seq)
